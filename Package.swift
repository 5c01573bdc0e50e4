// swift-tools-version: 6.0
// The layering (README "Layout"): C libraries at the bottom, the plugin ABI beside them,
// EffectKit for effect authors, the RenderFarm engine, the CLI, and a one-line executable.
// Effects are dynamic libraries in plugins/<name>/ and never depend on the engine.
import Foundation
import PackageDescription

// The libraries whose loops every render and every test runs (JSON, file reading and hashing, surfaces,
// timing, EffectKit's drawing and physics, the sound mixer's per-sample loops) are compiled optimised in every
// configuration, as the C targets are: in a debug build those loops ran as unspecialised generic code and took
// a fifth of `make test`'s CPU time. The engine, the plugins and the tests stay debuggable (-Onone). (The
// installed SDK's own Package.swift has no such flag; a plugin package builds EffectKit as it chooses.)
let optimized: [SwiftSetting] = [.unsafeFlags(["-O"])]

let package = Package(
    name: "RenderFarm",
    products: [
        .executable(name: "renderfarm", targets: ["renderfarm"]),
        // The plugin SDK: an out-of-tree package depends on this package and on `EffectKit` and
        // builds a self-contained `.dynamic` plugin library (`renderfarm plugin new NAME --lang swift`).
        .library(name: "EffectKit", targets: ["EffectKit"]),
        .library(name: "renderfarm-floating-heart", type: .dynamic, targets: ["FloatingHeart"]),
        .library(name: "renderfarm-gradient", type: .dynamic, targets: ["Gradient"]),
        .library(name: "renderfarm-parabolic-drop", type: .dynamic, targets: ["ParabolicDrop"]),
        .library(name: "renderfarm-physics-bounce", type: .dynamic, targets: ["PhysicsBounce"]),
        .library(name: "renderfarm-particles", type: .dynamic, targets: ["Particles"]),
        .library(name: "renderfarm-lottie", type: .dynamic, targets: ["Lottie"]),
        .library(name: "renderfarm-text", type: .dynamic, targets: ["Text"]),
        .library(name: "renderfarm-image", type: .dynamic, targets: ["Image"]),
        .library(name: "renderfarm-shape", type: .dynamic, targets: ["Shape"]),
        .library(name: "renderfarm-video", type: .dynamic, targets: ["Video"]),
        .executable(name: "renderfarm-bench", targets: ["RenderFarmBench"]),
        .executable(name: "renderfarm-bench-floor", targets: ["RenderFarmBenchFloor"]),
    ],
    targets: [
        // C libraries from Debian (pkg-config), each with a [system] modulemap and a shim header.
        .systemLibrary(name: "CCairo", pkgConfig: "cairo", providers: [.apt(["libcairo2-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        // zlib for CairoKit's inflate budget: a PNG's image data is inflated against its decoded size first.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // SHA-256 for fingerprints and manifests (the tests check it against OpenSSL's, CCrypto).
        .systemLibrary(name: "CNettle", pkgConfig: "nettle", providers: [.apt(["nettle-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // Chipmunk2D has no .pc file on Debian: the modulemap links "chipmunk" directly.
        .systemLibrary(name: "CChipmunk", providers: [.apt(["libchipmunk-dev"])]),
        // rlottie's C API; its variadic property override is wrapped in the shim (Swift cannot call varargs).
        .systemLibrary(name: "CRlottie", pkgConfig: "rlottie", providers: [.apt(["librlottie-dev"])]),
        // Pango and HarfBuzz through pangocairo; fontconfig and Pango's fontconfig font map are set up by the
        // text plugin itself (plugins/text/PangoText/FontLibrary.swift), the modulemap links them.
        .systemLibrary(name: "CPango", pkgConfig: "pangocairo", providers: [.apt(["libpango1.0-dev"])]),
        // FFmpeg's demuxers, decoders and scaler for footage; the shim reads through the plugin's own descriptor.
        // No pkgConfig: Debian's headers are on the default include path, and libavformat.pc's -pthread is a
        // flag SwiftPM refuses (with a warning on every build); the modulemap links the four libraries.
        .systemLibrary(
            name: "CLibAV", providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libavutil-dev"])]),
        // `renderfarm studio`: libmicrohttpd serves the page and its API; inotify sees edits. Its header only, no
        // pkg-config (whose flags would link it): CHTTPShim opens the library when a server starts.
        .systemLibrary(name: "CMicroHTTPD", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CInotify"),
        // JPEG images (the `image` effect) through libjpeg-turbo's TurboJPEG API, which reports errors by
        // status instead of libjpeg's longjmp.
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        // SVG images (the `image` effect) through librsvg, drawn with cairo at the size they are shown at.
        .systemLibrary(name: "CRsvg", pkgConfig: "librsvg-2.0", providers: [.apt(["librsvg2-dev"])]),
        // Animated WebP (the `video` effect), which FFmpeg does not read: libwebp's demuxer and animation decoder.
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"])]),
        // The manual (`renderfarm docs`, the man pages, the HTML without JavaScript): GitHub's CommonMark parser and
        // its renderers, with the table extension.
        .systemLibrary(
            name: "CMarkGFM", pkgConfig: "libcmark-gfm",
            providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"])]),

        // libpng needs setjmp/longjmp, which Swift cannot call: the writer stays in C. Frames without
        // row filters are compressed by libdeflate or zlib directly (README, "Performance").
        .target(
            name: "CPNGWriter", dependencies: ["CPNG"], cSettings: [.unsafeFlags(["-O2"])],
            linkerSettings: [.linkedLibrary("deflate"), .linkedLibrary("z")]
        ),
        // Frames converted to the encoders' YUV formats by the render workers (`render --video`, `encode`).
        .target(name: "CVideoFrame", cSettings: [.unsafeFlags(["-O2"])]),
        // The pixel work of layer styles: blurs, distance transforms, colour adjustments.
        .target(name: "CLayerStyle", cSettings: [.unsafeFlags(["-O2"])], linkerSettings: [.linkedLibrary("m")]),
        .target(name: "RenderFarmPluginABI"),
        // The header's companion library (librenderfarm-plugin.a, `make install`): helpers a plugin links
        // statically where the header cannot be inline under strict C99 (rf_path_inside needs POSIX realpath).
        .target(name: "RenderFarmPluginKit", dependencies: ["RenderFarmPluginABI"]),
        // What the host does around plugin code in C: names the plugin and frame on stderr when a plugin crashes
        // the process (signal-safe), and moves descriptor 1 under stdout's lock while plugin check watches it.
        .target(name: "CFaultReport"),
        // The sandbox of `render --isolate`'s workers: Landlock, seccomp (libseccomp), limits, namespaces.
        .target(name: "CSandbox", dependencies: ["CFaultReport"], linkerSettings: [.linkedLibrary("seccomp")]),

        .target(name: "StrictJSON", swiftSettings: optimized),
        // The one lock type (`Locked`, over pthread_mutex_t, which ThreadSanitizer sees; README "Sanitizers").
        .target(name: "Locking", swiftSettings: optimized),
        // The one reader of input files (regular files only, never blocking): below CairoKit so that
        // image assets (EffectKit) and job files, manifests and journals (RenderFarm) share it.
        .target(name: "FileInput", swiftSettings: optimized),
        .target(name: "CairoKit", dependencies: ["CCairo", "CZlib", "FileInput"], swiftSettings: optimized),
        // The one writer of output files (staged, renamed into place), their hashes and errors.
        .target(name: "FileOutput", dependencies: ["CNettle", "FileInput", "Locking"], swiftSettings: optimized),
        // Timing functions, Bezier paths and springs: what effects draw with and what the engine animates a job's
        // layers with, on Foundation alone (EffectKit re-exports it; the engine links no drawing or physics for it).
        .target(name: "Motion", dependencies: ["StrictJSON"], swiftSettings: optimized),
        .target(
            name: "EffectKit",
            dependencies: [
                "CairoKit", "FileInput", "Locking", "Motion", "RenderFarmPluginABI", "StrictJSON", "CChipmunk",
            ],
            swiftSettings: optimized
        ),
        // The engine, bottom up (README, "Layout"): job files and the plugins that check them; the
        // output folder's files; planning, rendering, encoding and tools. A target sees only those below it.
        .target(
            name: "RenderFarmJobs",
            dependencies: [
                "CairoKit", "CFaultReport", "Motion", "FileInput", "FileOutput", "Locking", "RenderFarmPluginABI",
                "StrictJSON",
            ]
        ),
        .target(
            name: "RenderFarmOutput",
            dependencies: [
                "RenderFarmJobs", "CairoKit", "CPNGWriter", "FileInput", "FileOutput", "Locking",
                "RenderFarmPluginABI", "StrictJSON",
            ]
        ),
        // Media: what making videos and sound shares (running ffmpeg and ffprobe, their log, the socket frames
        // reach ffmpeg by, the errors of making media), and the sound mixer, which knows no plugin: a layer's sound
        // is what its plugin declares (ABI `sounds`).
        .target(
            name: "RenderFarmMedia",
            dependencies: ["RenderFarmJobs", "RenderFarmOutput", "FileInput", "FileOutput", "Locking"]
        ),
        .target(
            name: "RenderFarmSound",
            dependencies: [
                "RenderFarmMedia", "RenderFarmJobs", "RenderFarmOutput", "FileInput", "FileOutput", "Locking",
                "StrictJSON",
            ],
            swiftSettings: optimized
        ),
        .target(
            name: "RenderFarm",
            dependencies: [
                "RenderFarmJobs", "RenderFarmOutput", "RenderFarmMedia", "RenderFarmSound", "CairoKit", "Motion",
                "FileInput", "FileOutput", "Locking", "RenderFarmPluginABI", "CPNGWriter", "CVideoFrame",
                "CLayerStyle", "StrictJSON", "CFaultReport", "CSandbox",
            ]
        ),
        // The studio: a small Swift interface over libmicrohttpd (its variadic C calls in a C shim),
        // and the web page with its API; the engine stays free of HTTP.
        .target(name: "CHTTPShim", dependencies: ["CMicroHTTPD"]),
        .target(name: "MicroHTTP", dependencies: ["CHTTPShim", "CMicroHTTPD", "Locking"]),
        // The studio's page as ordinary HTML, CSS and JavaScript files, compiled into the binary (#embed).
        .target(name: "StudioPage", exclude: ["page"]),
        .target(
            name: "RenderFarmStudio",
            dependencies: [
                "RenderFarm", "RenderFarmJobs", "RenderFarmOutput", "RenderFarmMedia", "RenderFarmSound", "FileInput",
                "FileOutput", "Locking", "MicroHTTP", "CInotify", "StrictJSON", "StudioPage", "CairoKit",
            ]),
        // The DocC articles compiled into the binary (#embed), and the manual that writes them for a terminal, man and
        // a browser without JavaScript.
        .target(name: "ManualArticles"),
        .target(name: "RenderFarmManual", dependencies: ["CMarkGFM", "ManualArticles"]),
        .target(
            name: "RenderFarmCLI",
            dependencies: [
                "RenderFarmManual",
                "RenderFarm", "RenderFarmJobs", "RenderFarmOutput", "RenderFarmMedia", "RenderFarmSound", "FileInput",
                "FileOutput",
                "Locking",
                "RenderFarmStudio",
            ]),
        .executableTarget(name: "renderfarm", dependencies: ["RenderFarmCLI"]),
        // What the engine's tests share: Swift effects registered as plugins of a catalog, in process.
        .target(name: "RenderFarmTestSupport", dependencies: ["RenderFarmJobs", "EffectKit"]),

        // Effect plugins: one dynamic library each, loaded by id through the C ABI.
        .target(name: "FloatingHeart", dependencies: ["EffectKit"], path: "plugins/floating-heart"),
        .target(
            name: "Gradient", dependencies: ["CCairo", "RenderFarmPluginABI"], path: "plugins/gradient",
            linkerSettings: [.linkedLibrary("m")]
        ),
        .target(name: "ParabolicDrop", dependencies: ["EffectKit"], path: "plugins/parabolic-drop"),
        .target(name: "PhysicsBounce", dependencies: ["EffectKit"], path: "plugins/physics-bounce"),
        // CAEmitterLayer's particles (EffectKit article ParticlesEffect): cairo directly, for additive drawing.
        .target(name: "Particles", dependencies: ["EffectKit", "CCairo"], path: "plugins/particles"),
        // Lottie files are checked in Swift before rlottie parses them (plugins/lottie/LottieCheck.swift).
        .target(
            name: "Lottie", dependencies: ["EffectKit", "CCairo", "CRlottie", "FileInput", "Locking"],
            path: "plugins/lottie"),
        // Text by Pango, with fonts only from the job and Debian's Noto packages (plugins/text/PangoText/FontLibrary.swift).
        // The effect is a target of its own so that its tests link it without the plugin's entry point.
        .target(
            name: "PangoText", dependencies: ["EffectKit", "CCairo", "CPango", "FileInput", "Locking"],
            path: "plugins/text/PangoText"),
        .target(name: "Text", dependencies: ["PangoText", "EffectKit"], path: "plugins/text", exclude: ["PangoText"]),
        // A still image (PNG, or JPEG by libjpeg-turbo) and vector shapes (SVG path data); each effect is a target
        // of its own, like the text effect, so that its tests link it without the plugin's entry point.
        .target(
            name: "StillImage", dependencies: ["EffectKit", "CCairo", "CTurboJPEG", "CRsvg"],
            path: "plugins/image/StillImage"),
        .target(
            name: "Image", dependencies: ["StillImage", "EffectKit"], path: "plugins/image", exclude: ["StillImage"]),
        .target(name: "VectorShape", dependencies: ["EffectKit", "CCairo"], path: "plugins/shape/VectorShape"),
        .target(
            name: "Shape", dependencies: ["VectorShape", "EffectKit"], path: "plugins/shape", exclude: ["VectorShape"]),
        // Footage by libavformat/libavcodec/libswscale, frame-accurate (FootageEffect article).
        // The rule that picks a clip's frame (and its sound) at a layer time is a target of its own: the host
        // follows it too when it mixes a clip's sound (Sound article).
        .target(name: "FootageTiming", dependencies: ["EffectKit", "StrictJSON"], path: "plugins/video/FootageTiming"),
        .target(
            name: "Video",
            dependencies: ["FootageTiming", "EffectKit", "CCairo", "CLibAV", "CWebP", "FileInput", "Locking"],
            path: "plugins/video", exclude: ["FootageTiming"]),

        // `make bench`: RenderFarm against hand-written C programs on the same frames (README, "Performance").
        // The floor loads the plugin libraries itself (dlopen) for jobs it has no hand-written C for.
        .executableTarget(
            name: "RenderFarmBench",
            dependencies: ["RenderFarm", "RenderFarmJobs", "CairoKit", "FileInput", "Locking", "StrictJSON"],
            exclude: ["Jobs"]),
        .executableTarget(
            name: "RenderFarmBenchFloor", dependencies: ["CCairo", "CPNG", "CPNGWriter", "RenderFarmPluginABI"],
            cSettings: [.unsafeFlags(["-O2"])], linkerSettings: [.linkedLibrary("m"), .linkedLibrary("dl")]
        ),

        .testTarget(name: "StrictJSONTests", dependencies: ["StrictJSON"]),
        .testTarget(name: "FileInputTests", dependencies: ["FileInput"]),
        .testTarget(name: "LockingTests", dependencies: ["Locking"]),
        .testTarget(name: "MotionTests", dependencies: ["Motion"]),
        .testTarget(
            name: "EffectKitTests", dependencies: ["EffectKit", "FileInput", "RenderFarmPluginKit", "CChipmunk"]),
        .testTarget(name: "LottieTests", dependencies: ["Lottie"]),
        .testTarget(name: "TextTests", dependencies: ["PangoText", "EffectKit", "CPango"]),
        .testTarget(name: "StillImageTests", dependencies: ["StillImage", "EffectKit", "CTurboJPEG"]),
        .testTarget(name: "VectorShapeTests", dependencies: ["VectorShape", "EffectKit"]),
        .testTarget(name: "FootageConversionTests", dependencies: ["CLibAV"]),
        .testTarget(
            name: "RenderFarmTests",
            dependencies: [
                "RenderFarm", "RenderFarmJobs", "RenderFarmOutput", "RenderFarmMedia", "RenderFarmSound", "FileOutput",
                "CPNG", "CPNGWriter", "CVideoFrame", "CairoKit", "CChipmunk", "EffectKit", "Locking", "Motion",
                "RenderFarmTestSupport",
            ]),
        .testTarget(
            name: "RenderFarmCLITests",
            dependencies: [
                "RenderFarmCLI", "RenderFarmJobs", "RenderFarmOutput", "RenderFarmMedia", "RenderFarmSound", "CCrypto",
                "CairoKit", "EffectKit", "Locking", "RenderFarmManual", "RenderFarmTestSupport",
            ]),
        .testTarget(
            name: "RenderFarmStudioTests",
            dependencies: ["RenderFarmStudio", "RenderFarm", "RenderFarmJobs", "MicroHTTP", "EffectKit", "StrictJSON"]),
    ],
    swiftLanguageModes: [.v6]
)

// `make sanitize` compiles the package twice more, with ThreadSanitizer and with AddressSanitizer, to run the suites
// its SANITIZE_TESTS names, which it passes in RENDERFARM_SANITIZER_BUILD. The manifest then leaves out code those
// two builds would compile and never run: the benchmark, the test targets that hold none of the suites, and of
// RenderFarmCLITests every file but the suites' own (each suite is in a file named after it) and the helpers they
// use (`sanitizedCLIHelpers`), 5.5k of its 21k lines. A helper missing from the list fails the sanitized build,
// naming what it cannot find; a suite with no test in the build fails `make sanitize`, naming the suite.
if let sanitizedSuites = Context.environment["RENDERFARM_SANITIZER_BUILD"] {
    let sanitizedTests: Set = [
        "RenderFarmTests", "RenderFarmCLITests", "RenderFarmStudioTests", "LockingTests", "EffectKitTests",
    ]
    let benchmark: Set = ["RenderFarmBench", "RenderFarmBenchFloor", "renderfarm-bench", "renderfarm-bench-floor"]
    package.targets.removeAll { ($0.type == .test && !sanitizedTests.contains($0.name)) || benchmark.contains($0.name) }
    package.products.removeAll { benchmark.contains($0.name) }

    let sanitizedCLIHelpers = [
        "AttackScene", "Fixtures", "FootageFixture", "FuzzRandom+Draws", "FuzzTests", "InProcessCLI", "InputFileTests",
        "LayerCompositionTests", "LottieEffectTests", "LottieFixture", "PhysicsCacheTests", "SmallDisk", "SoundTests",
        "SpecialFiles", "TestSupport", "Tools",
    ]
    let folder = Context.packageDirectory + "/Tests/RenderFarmCLITests/"
    let suiteFiles = sanitizedSuites.split(separator: " ").map { String($0.prefix { $0 != "/" }) + ".swift" }
    if let target = package.targets.first(where: { $0.name == "RenderFarmCLITests" }) {
        target.sources =
            sanitizedCLIHelpers.map { $0 + ".swift" }
            + suiteFiles.filter { FileManager.default.fileExists(atPath: folder + $0) }
    }
}
