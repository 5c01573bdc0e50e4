import EffectKit

/// A test effect: a red 20-point square at (20, 20), so a test can tell which effect drew a frame.
struct FixtureRed: Effect {
    static let descriptor = EffectDescriptor(
        id: "fixture-red", identifier: "org.renderfarm.tests.fixture-red", version: "1.0.0",
        summary: "A red square at (20, 20) (test fixture)",
        parameters: [ParameterSpec("size", .number, default: 20, range: 1...100, doc: "side in points")])

    let size: Double

    init(parameters: EffectParameters, context: EffectContext) throws(EffectError) {
        size = try parameters.number("size")
    }

    func render(in context: DrawingContext, at frame: FrameTime) throws(EffectError) {
        context.rectangle(x: 20, y: 20, width: size, height: size)
        context.setSource(Color(hex: "#FF0000") ?? .black)
        context.fill()
    }
}

private let export = PluginExport(FixtureRed.self)

@_cdecl("rf_plugin_main")
public func rf_plugin_main(_ hostVersion: UInt32) -> UnsafeRawPointer? {
    export.descriptor(forHost: hostVersion)
}
