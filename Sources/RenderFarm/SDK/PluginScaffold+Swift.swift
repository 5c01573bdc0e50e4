extension PluginScaffold {
    static let swiftPackage = #"""
        // swift-tools-version: 6.0
        // __ID__: a RenderFarm effect plugin in Swift. `make` (swift build -c release) makes
        // .build/release/__LIBRARY__, a self-contained library with its own copy of EffectKit.
        // EffectKit is the Swift package `renderfarm plugin new` found: the copy `make install` put
        // under <prefix>/share/renderfarm/swift/EffectKit, or a RenderFarm checkout. RENDERFARM_SOURCE
        // names another one (SwiftPM stops with an error when it holds no package).
        import Foundation
        import PackageDescription

        let effectKit = ProcessInfo.processInfo.environment["RENDERFARM_SOURCE"] ?? "__SOURCE__"
        // SwiftPM names a path dependency after its folder.
        let effectKitPackage = URL(fileURLWithPath: effectKit).lastPathComponent

        let package = Package(
            name: "__ID__",
            products: [
                .library(name: "renderfarm-__ID__", type: .dynamic, targets: ["__MODULE__"])
            ],
            dependencies: [.package(path: effectKit)],
            targets: [
                .target(name: "__MODULE__", dependencies: [.product(name: "EffectKit", package: effectKitPackage)]),
                .testTarget(name: "__MODULE__Tests", dependencies: ["__MODULE__"]),
            ],
            swiftLanguageModes: [.v6]
        )

        """#

    /// Release, because a debug build links libswiftSwiftOnoneSupport.so, which only the toolchain
    /// has: the installed renderfarm carries the runtime libraries of release builds alone.
    static let swiftMakefile = #"""
        # __ID__: a RenderFarm effect plugin in Swift. Built in release: a debug build links
        # libswiftSwiftOnoneSupport.so, which only the Swift toolchain has, so an installed renderfarm
        # (which carries the runtime libraries release builds need) cannot load it elsewhere.
        SWIFT      ?= swift
        PKG_CONFIG ?= pkg-config
        RENDERFARM ?= renderfarm
        PLUGIN     := .build/release/__LIBRARY__
        PLUGIN_DIR  = $(shell $(PKG_CONFIG) --variable=plugindir renderfarm-plugin)
        # The user's plugin folder, which renderfarm searches by default (XDG_DATA_HOME when absolute).
        USER_PLUGIN_DIR ?= $(or $(filter /%,$(XDG_DATA_HOME)),$(HOME)/.local/share)/renderfarm/plugins

        .PHONY: all check test install install-user uninstall clean

        all:
        	$(SWIFT) build -c release

        # The conformance check of renderfarm_plugin.h's rules.
        check: all
        	$(RENDERFARM) plugin check ./$(PLUGIN)

        # The pixel test (swift test), then two frames of the example job with the library on the plugin path.
        test: all
        	$(SWIFT) test
        	rm -rf __TEST_OUTPUT__
        	$(RENDERFARM) __TEST_RENDER__

        install: all
        	install -D -m 644 $(PLUGIN) $(DESTDIR)$(PLUGIN_DIR)/__LIBRARY__

        # Into the user's own plugin folder: no root, no variable.
        install-user: all
        	install -D -m 644 $(PLUGIN) $(USER_PLUGIN_DIR)/__LIBRARY__

        uninstall:
        	rm -f $(DESTDIR)$(PLUGIN_DIR)/__LIBRARY__ $(USER_PLUGIN_DIR)/__LIBRARY__

        clean:
        	rm -rf .build out

        """#

    static let swiftEffect = #"""
        import EffectKit
        import Foundation

        /// Dots orbiting the canvas centre, in the colours of `colors`. Made by
        /// `renderfarm plugin new __ID__ --lang swift`; change it freely.
        ///
        /// `init` draws every random number from the layer's seed; `render` and `trace` only read,
        /// so frame k has the same bytes on any thread and in any order.
        struct __MODULE__: TracingEffect {
            static let descriptor = EffectDescriptor(
                id: "__ID__",
                identifier: "com.example.__ID__",
                version: "0.1.0",
                summary: "Dots orbiting the canvas centre (made with renderfarm plugin new)",
                threadSafety: .full,
                parameters: [
                    ParameterSpec("count", .integer, default: 8, range: 1...256, doc: "how many dots"),
                    ParameterSpec("radius", .number, default: 9, range: 1...200, doc: "dot radius in points"),
                    ParameterSpec("period", .number, default: 3, range: 0.1...600, doc: "seconds per orbit"),
                    ParameterSpec(
                        "colors", .colorList, default: ["#FF9500", "#AF52DE", "#34C759"], range: 1...16,
                        doc: "dot colours, used in turn"),
                ]
            )

            struct Dot: Sendable {
                var orbit: Double
                var start: Double
                var color: Color
            }

            let center: Point
            let radius: Double
            let period: Double
            let dots: [Dot]

            init(parameters: EffectParameters, context: EffectContext) throws(EffectError) {
                radius = try parameters.number("radius")
                period = try parameters.number("period")
                let colors = try parameters.colors("colors")
                guard !colors.isEmpty else { throw EffectError(parameter: "colors", "needs at least one colour") }
                let count = try parameters.integer("count")
                center = Point(context.width / 2, context.height / 2)
                let reach = max(radius, min(context.width, context.height) / 2 - radius)
                var dots: [Dot] = []
                for index in 0..<count {
                    // One random stream per dot, from the layer seed and the dot's index.
                    var random = SeededRandom(seed: context.itemSeed(index))
                    let orbit = random.uniform(in: 0.3 * reach...reach)
                    let start = random.uniform(in: 0...(2 * Double.pi))
                    dots.append(Dot(orbit: orbit, start: start, color: colors[index % colors.count]))
                }
                self.dots = dots
            }

            func position(of dot: Dot, at frame: FrameTime) -> Point {
                let angle = dot.start + 2 * Double.pi * max(0, frame.local) / period
                return Point(center.x + dot.orbit * cos(angle), center.y + dot.orbit * sin(angle))
            }

            func render(in context: DrawingContext, at frame: FrameTime) throws(EffectError) {
                for dot in dots {
                    let point = position(of: dot, at: frame)
                    context.newPath()
                    context.arc(centerX: point.x, centerY: point.y, radius: radius, from: 0, to: 2 * Double.pi)
                    context.setSource(dot.color)
                    context.fill()
                }
            }

            func trace(at frame: FrameTime) -> [TraceItem]? {
                dots.enumerated().map { index, dot in
                    TraceItem(
                        id: index, position: position(of: dot, at: frame), alpha: dot.color.alpha, visible: true,
                        plan: ["orbit": .number(dot.orbit), "start": .number(dot.start)])
                }
            }
        }

        """#

    static let swiftExport = #"""
        import EffectKit

        private let export = PluginExport(__MODULE__.self)

        /// The plugin's entry point (renderfarm_plugin.h): the host calls it once per process.
        @_cdecl("rf_plugin_main")
        package func rf_plugin_main(_ hostVersion: UInt32) -> UnsafeRawPointer? {
            export.descriptor(forHost: hostVersion)
        }

        """#

    static let swiftTest = #"""
        import EffectKit
        import Testing

        @testable import __MODULE__

        @Suite("__ID__ renders")
        struct __MODULE__Tests {
            static let width = 320
            static let height = 240

            /// Draws `index` at 30 fps with the descriptor's defaults, as the host would.
            func draw(_ effect: __MODULE__, _ index: Int) throws -> ImageSurface {
                let surface = try ImageSurface(width: Self.width, height: Self.height)
                let context = try DrawingContext(surface: surface)
                let time = Double(index) / 30
                try effect.render(in: context, at: FrameTime(index: index, time: time, local: time))
                surface.flush()
                return surface
            }

            @Test("two frames have a dot at every traced position, and differ")
            func twoFrames() throws {
                var defaults = JSONObject()
                for parameter in __MODULE__.descriptor.parameters { defaults[parameter.name] = parameter.defaultValue }
                let context = EffectContext(
                    width: Double(Self.width), height: Double(Self.height), fps: 30, duration: 2, seed: 7)
                let effect = try __MODULE__(parameters: EffectParameters(defaults), context: context)
                var frames: [[UInt8]] = []
                for index in [0, 30] {
                    let surface = try draw(effect, index)
                    let time = Double(index) / 30
                    for item in effect.trace(at: FrameTime(index: index, time: time, local: time)) ?? [] {
                        let pixel = surface.pixel(x: Int(item.position.x), y: Int(item.position.y))
                        #expect(pixel.a > 0, "dot \(item.id) of frame \(index) at \(item.position)")
                    }
                    frames.append(Array(UnsafeBufferPointer(start: surface.bytes, count: surface.stride * surface.height)))
                }
                #expect(frames[0] != frames[1], "the dots should move")
            }
        }

        """#

    static let swiftReadme = #"""
        # __ID__

        A RenderFarm effect plugin in Swift: dots orbiting the canvas centre, in the colours of the
        `colors` list. Made with `renderfarm plugin new __ID__ --lang swift`.

        - `make` builds `.build/release/__LIBRARY__` (`swift build -c release`). Release, not debug:
          a debug build links `libswiftSwiftOnoneSupport.so`, which only the Swift toolchain has, so
          an installed renderfarm elsewhere cannot load it.
        - `make test` runs `swift test` (two frames, their pixels checked against the trace) and
          renders frames 0 and 30 of `example.json`.
        - `make check` runs `renderfarm plugin check` on the library before shipping.
        - `make install-user` copies the library into your own plugin folder
          (`$XDG_DATA_HOME/renderfarm/plugins`, by default `~/.local/share/renderfarm/plugins`), which
          renderfarm searches by default; `make install` into the installed plugin folder
          (`pkg-config --variable=plugindir renderfarm-plugin`; every user, may need root). Or run
          `renderfarm render example.json --plugin-path .build/release` without installing.

        EffectKit comes from `__SOURCE__` (Package.swift; `RENDERFARM_SOURCE=/path` names another
        copy). The effect conforms to `TracingEffect` because it can say where its dots are; an effect
        that cannot drops that conformance and its `trace(at:)`, and is then left out of
        `renderfarm trace` and `preview --debug`.

        """#
}
