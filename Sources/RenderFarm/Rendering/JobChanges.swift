import RenderFarmJobs
import RenderFarmOutput
import StrictJSON

/// Where two canonical jobs (`FrameIdentity.canonical`) differ, as places in the job file: `layers[1].params.fill`,
/// `layers[0].group[1].transform.anchor`, `canvas.background`. What a layer's plugin library and input files
/// are is left to `RerunReason`, which names them on their own.
enum JobChanges {
    /// Members of a canonical layer entry that other reasons report.
    static let reportedElsewhere: Set<String> = [
        "pluginVersion", "pluginSHA256", LayerInput.Reader.plugin.rawValue, LayerInput.Reader.host.rawValue,
        LayerInput.Reader.composition.rawValue,
    ]

    /// The places where `after` differs from `before`, in the terms of `spec` (the job `after` was made from).
    static func places(before: JSONValue, after: JSONValue, spec: JobSpec) -> [String] {
        var found: [String] = []
        diff(before, after, at: [], into: &found, spec: spec)
        var seen: Set<String> = []
        let places = found.filter { seen.insert($0).inserted }
        guard places.count > Self.detailed else { return places }
        // Many changes (a layer moved, a group rebuilt): the layers and groups they are in, not every member.
        var entries: Set<String> = []
        return places.map(entry).filter { entries.insert($0).inserted }
    }

    /// Up to this many places are named member by member.
    static let detailed = 3

    /// The layer or group a place is in (`layers[2].group[0]` for `layers[2].group[0].params.fill`, through
    /// compositions: `layers[1].composition.layers[0]`), or its first name (`canvas` for `canvas.background`).
    static func entry(_ place: String) -> String {
        var end = place.startIndex
        var rest = place[...]
        if rest.hasPrefix("layers["), let close = rest.firstIndex(of: "]") {
            end = place.index(after: close)
            rest = place[end...]
            while [".group[", ".composition.layers["].contains(where: { rest.hasPrefix($0) }),
                let close = rest.firstIndex(of: "]")
            {
                end = place.index(after: close)
                rest = place[end...]
            }
        }
        return end == place.startIndex ? String(place.prefix { $0 != "." && $0 != "[" }) : String(place[..<end])
    }

    private static func diff(
        _ before: JSONValue, _ after: JSONValue, at path: [PathPart], into found: inout [String], spec: JobSpec
    ) {
        guard before != after else { return }
        switch (before, after) {
        case (.object(let old), .object(let new)):
            let keys = Set(old.keys).union(new.keys).sorted()
            for key in keys {
                if path.count == 2, path[0] == .key("layers"), reportedElsewhere.contains(key) { continue }
                diff(old[key] ?? .null, new[key] ?? .null, at: path + [.key(key)], into: &found, spec: spec)
            }
        case (.array(let old), .array(let new)) where old.count == new.count:
            for (index, pair) in zip(old, new).enumerated() {
                if pair.0 != pair.1, let place = Self.replaced(pair.0, by: pair.1) {
                    found.append(place)
                } else {
                    diff(pair.0, pair.1, at: path + [.index(index)], into: &found, spec: spec)
                }
            }
        case (.array(let old), .array(let new)):
            // A layer added or removed: the first entry that differs, by its own place in the job file (the
            // removed one from the earlier job, the added one from this).
            let index = (0..<min(old.count, new.count)).first { old[$0] != new[$0] } ?? min(old.count, new.count)
            let entry = old.count > new.count ? old[index] : new[index]
            found.append(entry.objectValue?["path"]?.stringValue ?? shown(path + [.index(index)], spec: spec))
        default:
            found.append(shown(path, spec: spec))
        }
    }

    /// The place of a list entry that another took (a layer moved, a layer turned into a group): an entry
    /// of `layers` whose effect differs, or of `composition` whose content is another layer or a group
    /// instead of a layer, is named whole, not member by member.
    private static func replaced(_ old: JSONValue, by new: JSONValue) -> String? {
        guard let before = old.objectValue, let after = new.objectValue, let place = after["path"]?.stringValue
        else { return nil }
        let (oldContent, newContent) = (before["content"]?.objectValue, after["content"]?.objectValue)
        let otherLayer = oldContent?["effect"] != newContent?["effect"] || oldContent?.keys != newContent?.keys
        return before["effect"] != after["effect"] || otherLayer ? place : nil
    }

    enum PathPart: Equatable {
        case key(String)
        case index(Int)
    }

    /// `path` in the canonical job as the place in the job file it comes from.
    static func shown(_ path: [PathPart], spec: JobSpec) -> String {
        var parts = path[...]
        var place = ""
        switch (parts.popFirst(), parts.first) {
        case (.key("layers"), .index(let index)) where index < spec.layers.count:
            parts.removeFirst()
            place = spec.layers[index].path
        case (.key("composition"), .index(let index)) where index < spec.composition.count:
            parts.removeFirst()
            var node = spec.composition[index]
            // Into groups: content.group._0[j] is the group's child j.
            while Array(parts.prefix(3)) == [.key("content"), .key("group"), .key("_0")], parts.count > 3,
                case .index(let child) = parts[parts.startIndex + 3], case .group(let children) = node.content,
                child < children.count
            {
                parts.removeFirst(4)
                node = children[child]
            }
            place = node.path
            if parts.first == .key("fields") { parts.removeFirst() }
        case (.key(let key), _):
            place = key
        default:
            break
        }
        for part in parts {
            switch part {
            // The encoding's own words: an enum's case and its payload, a colour's channels, a curve's solver.
            case .key("constant"), .key("_0"), .key("content"): continue
            case .key(let key) where ["red", "green", "blue", "alpha"].contains(key): return place
            case .key(let key):
                place += place.isEmpty ? key : "." + key
                if key == "timing" { return place }
            case .index(let index): place += "[\(index)]"
            }
        }
        return place
    }
}
