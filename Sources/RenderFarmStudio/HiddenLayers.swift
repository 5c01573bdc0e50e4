import RenderFarmJobs
import StrictJSON

/// The studio's hide and solo (article Studio, "Hide and solo"): the preview of a job without some of its effect
/// layers is made from the job's text with those layers taken out, so a hidden layer is neither drawn nor heard,
/// and a frame with layers hidden is the frame `render` makes of the file without them. The file is not changed.
enum HiddenLayers {
    /// The most layers one request may name: as many as a job may have.
    static let maxCount = JobDecoder.Limits.maxLayers

    /// The layers `?hide=I,J,…` names: places in `GET /api/job`'s `layers`, sorted, each once.
    static func parse(_ query: String?) throws(StudioFailure) -> [Int] {
        guard let query, !query.isEmpty else { return [] }
        let words = query.split(separator: ",", omittingEmptySubsequences: false)
        guard words.count <= maxCount else {
            throw StudioFailure(status: 400, "hide= names more than \(maxCount) layers")
        }
        var layers = Set<Int>()
        for word in words {
            guard let layer = Int(word), layer >= 0 else {
                throw StudioFailure(
                    status: 400, "hide=\(query): \"\(word)\" is not a layer number (from 0, as /api/job lists them)")
            }
            layers.insert(layer)
        }
        return layers.sorted()
    }

    /// `text` (the job file's) without the effect layers at `hidden` of `spec` (one of the jobs it makes),
    /// serialized again. A group goes when all its layers do. A layer that masks others (`mask.layer`) is not drawn
    /// itself: it goes, whole, when every layer it masks does, and stays, whole, while one of them stays.
    static func text(_ text: String, hiding hidden: [Int], of spec: JobSpec) throws(StudioFailure) -> String {
        if let outside = hidden.first(where: { !spec.layers.indices.contains($0) }) {
            throw StudioFailure(status: 400, "hide=\(outside): the job has layers 0…\(spec.layers.count - 1)")
        }
        let (removed, allGone) = removedPaths(spec.composition, hidden: Set(hidden))
        guard !allGone else {
            throw StudioFailure(status: 422, "every layer is hidden: there is nothing to draw but the background")
        }
        guard case .object(var root)? = try? JSONParser.parse(text), let layers = root["layers"]?.arrayValue
        else { throw StudioFailure(status: 409, "the job file is not valid; GET /api/job lists its problems") }
        root["layers"] = .array(prune(layers, path: "layers", removing: removed))
        return JSONValue.object(root).serialized(pretty: true)
    }

    /// The paths of the nodes of `nodes` (a layer list) that go when the effect layers at `hidden` are hidden,
    /// and whether that is every node of the list.
    private static func removedPaths(_ nodes: [LayerNode], hidden: Set<Int>) -> (Set<String>, Bool) {
        var removed = Set<String>()
        var gone = [Bool](repeating: false, count: nodes.count)
        for (index, node) in nodes.enumerated() where !node.isMask {
            switch node.content {
            case .effect(let layer): gone[index] = hidden.contains(layer)
            case .group(let children):
                let inner = removedPaths(children, hidden: hidden)
                removed.formUnion(inner.0)
                gone[index] = inner.1
            }
        }
        // A mask goes once every layer it masks has gone (a mask may mask a mask: until nothing changes).
        var changed = true
        while changed {
            changed = false
            for (index, node) in nodes.enumerated() where node.isMask && !gone[index] {
                let users = nodes.indices.filter { nodes[$0].fields.mask?.source == index }
                if users.allSatisfy({ gone[$0] }) {
                    gone[index] = true
                    changed = true
                }
            }
        }
        for (index, node) in nodes.enumerated() where gone[index] { removed.insert(node.path) }
        return (removed, !gone.contains(false))
    }

    /// The layer list at `path` without the layers and groups at `removed`.
    private static func prune(_ list: [JSONValue], path: String, removing removed: Set<String>) -> [JSONValue] {
        list.enumerated().compactMap { index, entry in
            let own = "\(path)[\(index)]"
            if removed.contains(own) { return nil }
            guard case .object(var object) = entry, let group = object["group"]?.arrayValue else { return entry }
            object["group"] = .array(prune(group, path: own + ".group", removing: removed))
            return .object(object)
        }
    }
}
