import Foundation
import StrictJSON
import Testing

@testable import RenderFarm
@testable import RenderFarmJobs

/// A frame's identity is the job model itself: every stored property of `JobSpec`, at any depth, is in the
/// canonical job but the few `FrameIdentity.notDrawn` names. The walk below reads the properties with
/// `Mirror`, so a field added to the model is checked here the day it is added, with no list to update.
@Suite("Frame identity")
struct FrameIdentityTests {
    /// A job that sets every field the job model has, optional ones included.
    static let richJob = #"""
        {"version": 1, "name": "rich", "seed": 7, "fps": 30, "duration": 4, "frames": "0-9", "retries": 2,
         "canvas": {"width": 200, "height": 100, "scale": 2, "background": "#10203040"},
         "output": {"dir": "out", "prefix": "f_", "padding": 4, "compression": 6, "duplicates": "link"},
         "layers": [
           {"name": "window", "effect": "shape", "params": {"fill": "#FFFFFF"},
            "transform": {"path": {"d": "M 0 0 C 10 0 20 10 20 20", "autoOrient": true,
                                   "progress": {"keyframes": [{"t": 0, "value": 0}, {"t": 2, "value": 1}]}}}},
           {"effect": "floating-heart", "start": 0.5, "end": 3.5, "speed": 1.5, "loop": 2, "blend": "screen",
            "opacity": {"keyframes": [{"t": 0, "value": 0}, {"t": 1, "value": 1, "timing": "easeOut"},
                                      {"t": 2, "value": 0.5, "timing": {"damping": 0.5, "velocity": 1}}]},
            "transform": {"anchor": [10, 20], "rotation": 15, "scale": [1, 2],
                          "position": {"keyframes": [{"t": 0, "value": [0, 0], "outTangent": [3, 0]},
                                                     {"t": 1, "value": [5, 5], "inTangent": [0, -3]}]}},
            "mask": {"layer": "window", "mode": "luminance", "invert": true},
            "params": {"rate": 2}},
           {"name": "combo", "start": 1, "opacity": 0.5, "group": [{"effect": "text", "params": {"text": "x"}}],
            "motionBlur": {"shutterAngle": 90, "shutterPhase": 0, "samples": 4},
            "style": {"dropShadow": {"color": "#102030", "opacity": 0.5, "angle": 90, "distance": 3, "blur": 2,
                                     "spread": 1},
                      "outerGlow": {"color": "#FFEE00", "blur": 4, "spread": 1},
                      "innerGlow": {"color": "#00EEFF", "opacity": 0.4, "blur": 3, "spread": 0.5},
                      "stroke": {"color": "#FFFFFF", "width": 2, "position": "center", "opacity": 0.8},
                      "blur": {"keyframes": [{"t": 0, "value": 0}, {"t": 1, "value": 3}]},
                      "adjust": {"brightness": 0.1, "contrast": 0.2, "saturation": -0.5, "tint": "#FF8000",
                                 "tintAmount": 0.3}}},
           {"composition": "card.json", "params": {"label": "y"}, "start": 2}
         ],
         "audio": {"music": {"file": "bed.wav", "start": 1, "trim": {"in": 0, "out": 3}, "gain": -6, "fadeIn": 0.5,
                             "fadeOut": 1},
                   "sounds": [{"file": "ding.wav", "at": [0.5], "gain": -3, "maxVoices": 4}]}}
        """#

    /// The composition the rich job places, with a background, a seed and a parameter.
    static let card = #"""
        {"version": 1, "seed": 9, "duration": 1, "canvas": {"width": 50, "height": 20, "background": "#FF000080"},
         "parameters": {"label": {"type": "string", "default": "x"}},
         "layers": [{"effect": "text", "params": {"text": "{{label}}"}}]}
        """#

    static func spec() throws -> JobSpec {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rich-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try card.write(to: folder.appendingPathComponent("card.json"), atomically: true, encoding: .utf8)
        let files = CompositionFiles(root: folder.path, jobFile: "rich.json")
        switch JobDecoder.decode(try JSONParser.parse(richJob), defaultName: "rich", compositions: files) {
        case .success(let spec): return spec
        case .failure(let issues): throw Failure(issues.issues.map(\.description).joined(separator: "\n"))
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    @Test("every stored property of the job model is in the identity but the ones named not drawn")
    func everyFieldIsHashed() throws {
        let spec = try Self.spec()
        var found = ModelWalk()
        found.walk(spec, JSONValue.object(FrameIdentity.model(spec)), at: "")
        #expect(found.unset.isEmpty, "the rich job leaves these unset, so they are not checked: \(found.unset)")
        let notDrawn = Set(FrameIdentity.notDrawn.map { $0.joined(separator: ".") })
        // The sound's fields of every layer and group, wherever the composition has one.
        let layerFields = Set(
            found.missing.filter { path in
                FrameIdentity.notDrawnLayerFields.contains {
                    path.hasPrefix("composition[") && path.hasSuffix(".fields.\($0)")
                }
            })
        // The rich job has six nodes: four layers, the one inside its group and the one of its composition.
        #expect(layerFields.count == FrameIdentity.notDrawnLayerFields.count * 6, "\(layerFields.sorted())")
        #expect(Set(found.missing) == notDrawn.union(layerFields), "fields the identity leaves out: \(found.missing)")
    }

    @Test("a field added to a model value enters its identity with no list to update")
    func addedField() throws {
        // As a layer's fields would look with one more field: the encoder is the one the identity uses.
        struct Glow: Encodable { var radius: Double }
        struct FieldsWithGlow: Encodable {
            var fields: LayerFields
            var glow: Glow
        }
        let fields = try Self.spec().composition[1].fields
        let dim = try JSONValueEncoder.encode(FieldsWithGlow(fields: fields, glow: Glow(radius: 2)))
        let bright = try JSONValueEncoder.encode(FieldsWithGlow(fields: fields, glow: Glow(radius: 8)))
        #expect(dim.objectValue?["glow"]?.objectValue?["radius"] == .number(2))
        #expect(dim.serialized(sortedKeys: true) != bright.serialized(sortedKeys: true))
        #expect(
            dim.objectValue?["fields"]
                == JSONValue.object(try #require(try JSONValueEncoder.encode(fields).objectValue)))
    }

    @Test("changing any value the identity holds changes the job's fingerprint text")
    func everyLeafCounts() throws {
        let model = JSONValue.object(FrameIdentity.model(try Self.spec()))
        let original = model.serialized(sortedKeys: true)
        var leaves = 0
        for variant in Self.perturbations(of: model) {
            leaves += 1
            #expect(variant.serialized(sortedKeys: true) != original)
        }
        #expect(leaves > 60, "the rich job has \(leaves) values")
    }

    /// `value` with one leaf changed, for each leaf.
    static func perturbations(of value: JSONValue) -> [JSONValue] {
        switch value {
        case .null: return [.bool(true)]
        case .bool(let flag): return [.bool(!flag)]
        case .number(let number): return [.number(number + 1)]
        case .string(let text): return [.string(text + "!")]
        case .array(let elements):
            return elements.indices.flatMap { index in
                perturbations(of: elements[index]).map { changed in
                    var copy = elements
                    copy[index] = changed
                    return JSONValue.array(copy)
                }
            }
        case .object(let object):
            return object.keys.flatMap { key in
                perturbations(of: object[key] ?? .null).map { changed in
                    var copy = object
                    copy[key] = changed
                    return JSONValue.object(copy)
                }
            }
        }
    }
}

/// Walks a model value with `Mirror` beside its JSON form, noting every stored property the JSON lacks.
struct ModelWalk {
    /// Dotted paths of properties with no member in the JSON.
    var missing: [String] = []
    /// Optional properties (`Type.name`) compared wherever they were set.
    private var set: Set<String> = []
    /// Optional properties (`Type.name`) found nil, so not compared there.
    private var found: Set<String> = []
    /// Optional properties nil wherever they were met: the fixture must set each once, to compare it.
    var unset: [String] { found.subtracting(set).sorted() }

    mutating func walk(_ value: Any, _ json: JSONValue, at path: String) {
        // JSON values are the JSON they hold.
        if value is JSONValue || value is JSONObject { return }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .struct, .tuple:
            // A structure that encodes as one value (a frame set as its text) is compared as a whole.
            guard case .object(let object) = json else { return }
            for (offset, child) in mirror.children.enumerated() {
                let label = child.label.map { $0.hasPrefix(".") ? "_\(offset)" : $0 } ?? "_\(offset)"
                let place = path.isEmpty ? label : path + "." + label
                let field = "\(type(of: value)).\(label)"
                if let member = object[label] {
                    set.insert(field)
                    walk(child.value, member, at: place)
                } else if Mirror(reflecting: child.value).displayStyle == .optional,
                    Mirror(reflecting: child.value).children.isEmpty
                {
                    found.insert(field)
                } else {
                    missing.append(place)
                }
            }
        case .optional:
            if let some = mirror.children.first { walk(some.value, json, at: path) }
        case .collection:
            guard case .array(let elements) = json else { return missing.append(path) }
            for (index, pair) in zip(mirror.children, elements).enumerated() {
                walk(pair.0.value, pair.1, at: "\(path)[\(index)]")
            }
        case .enum:
            // A case with a payload is {"case": {"_0": payload}} or {"case": {"label": …}}.
            guard let child = mirror.children.first, let label = child.label else { return }
            guard let payload = json.objectValue?[label] else { return missing.append(path + "." + label) }
            let isTuple = Mirror(reflecting: child.value).displayStyle == .tuple
            walk(child.value, isTuple ? payload : payload.objectValue?["_0"] ?? .null, at: path + "." + label)
        default:
            return
        }
    }
}
