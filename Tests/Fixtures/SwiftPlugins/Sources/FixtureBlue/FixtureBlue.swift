import EffectKit

import Foundation

/// A test effect: a blue 20-point square at (60, 60), so a test can tell which effect drew a frame. It refuses to
/// be created unless the host told it the folder that holds its library (`EffectContext.pluginDirectory`).
struct FixtureBlue: Effect {
    static let descriptor = EffectDescriptor(
        id: "fixture-blue", identifier: "org.renderfarm.tests.fixture-blue", version: "1.0.0",
        summary: "A blue square at (60, 60) (test fixture)",
        parameters: [ParameterSpec("size", .number, default: 20, range: 1...100, doc: "side in points")])

    let size: Double

    init(parameters: EffectParameters, context: EffectContext) throws(EffectError) {
        size = try parameters.number("size")
        guard let folder = context.pluginDirectory,
            FileManager.default.fileExists(atPath: folder + "/librenderfarm-fixture-blue.so")
        else { throw EffectError("the host gave no folder holding this library: \(context.pluginDirectory ?? "none")") }
    }

    func render(in context: DrawingContext, at frame: FrameTime) throws(EffectError) {
        context.rectangle(x: 60, y: 60, width: size, height: size)
        context.setSource(Color(hex: "#0000FF") ?? .black)
        context.fill()
    }
}

private let export = PluginExport(FixtureBlue.self)

@_cdecl("rf_plugin_main")
public func rf_plugin_main(_ hostVersion: UInt32) -> UnsafeRawPointer? {
    export.descriptor(forHost: hostVersion)
}
