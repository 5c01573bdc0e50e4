// swift-tools-version: 6.0
// Two Swift plugins built outside RenderFarm's own package, as a third party builds them: each
// dynamic library links its own copy of EffectKit (`make test-plugin` builds them; SDKTests load
// both with every built-in plugin into one process and check each draws its own effect).
import Foundation
import PackageDescription

// The RenderFarm checkout three folders up; SwiftPM names a path dependency after its folder.
let renderFarm = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().standardizedFileURL

let package = Package(
    name: "SwiftPlugins",
    products: [
        .library(name: "renderfarm-fixture-red", type: .dynamic, targets: ["FixtureRed"]),
        .library(name: "renderfarm-fixture-blue", type: .dynamic, targets: ["FixtureBlue"]),
    ],
    dependencies: [.package(path: renderFarm.path)],
    targets: [
        .target(
            name: "FixtureRed", dependencies: [.product(name: "EffectKit", package: renderFarm.lastPathComponent)]),
        .target(
            name: "FixtureBlue", dependencies: [.product(name: "EffectKit", package: renderFarm.lastPathComponent)]),
    ],
    swiftLanguageModes: [.v6]
)
