extension PluginScaffold {
    static let swiftPackage = #"""
        // swift-tools-version: 6.0
        // __ID__: a RenderFarm effect plugin in Swift. `swift build` makes .build/debug/__LIBRARY__,
        // a self-contained library with its own copy of EffectKit. EffectKit comes from a RenderFarm
        // source checkout: the path `renderfarm plugin new` recorded, or RENDERFARM_SOURCE.
        import Foundation
        import PackageDescription

        let renderFarm = ProcessInfo.processInfo.environment["RENDERFARM_SOURCE"] ?? "__SOURCE__"
        // SwiftPM names a path dependency after its folder.
        let renderFarmPackage = URL(fileURLWithPath: renderFarm).lastPathComponent

        let package = Package(
            name: "__ID__",
            products: [
                .library(name: "renderfarm-__ID__", type: .dynamic, targets: ["__MODULE__"])
            ],
            dependencies: [.package(path: renderFarm)],
            targets: [
                .target(name: "__MODULE__", dependencies: [.product(name: "EffectKit", package: renderFarmPackage)]),
                .testTarget(name: "__MODULE__Tests", dependencies: ["__MODULE__"]),
            ],
            swiftLanguageModes: [.v6]
        )

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
        public func rf_plugin_main(_ hostVersion: UInt32) -> UnsafeRawPointer? {
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

        - `swift build` builds `.build/debug/__LIBRARY__` (EffectKit from the RenderFarm checkout
          in Package.swift; set `RENDERFARM_SOURCE=/path/to/renderfarm` to use another one).
        - `swift test` renders two frames and checks their pixels.
        - `renderfarm plugin check .build/debug/__LIBRARY__` checks the plugin before shipping.
        - `renderfarm render example.json --plugin-path .build/debug` renders the example job; or
          copy the library into `<prefix>/lib/renderfarm/plugins` to install it.

        """#
}
