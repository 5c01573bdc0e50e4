import Foundation

/// A layer's place in a job: indexes from the job's `layers` down through groups (`[1, 0]` is
/// `layers[1].group[0]`).
typealias HarnessLayerPath = [Int]

/// Reading and changing a job's layers by their place.
extension HarnessJSON {
    /// `layers[1].group[0]`, as `validate` names the layer.
    static func location(_ path: HarnessLayerPath) -> String {
        path.enumerated().map { $0.offset == 0 ? "layers[\($0.element)]" : "group[\($0.element)]" }
            .joined(separator: ".")
    }

    /// The list holding the layer at `path` (the job's `layers` or a group's `group`).
    func list(of path: HarnessLayerPath) -> [HarnessJSON] {
        guard let parent = path.dropLast().isEmpty ? self : layer(Array(path.dropLast())) else { return [] }
        return parent[path.count == 1 ? "layers" : "group"]?.arrayValue ?? []
    }

    /// The layer (or group) at `path`.
    func layer(_ path: HarnessLayerPath) -> HarnessJSON? {
        var current = self
        for (depth, index) in path.enumerated() {
            guard let list = current[depth == 0 ? "layers" : "group"]?.arrayValue, list.indices.contains(index) else {
                return nil
            }
            current = list[index]
        }
        return current
    }

    /// Replaces the layer at `path`; nil removes it.
    mutating func setLayer(_ path: HarnessLayerPath, _ value: HarnessJSON?) {
        setEntry(path[...], value, of: "layers")
    }

    /// Replaces the entry at `path` of the list `key` (the job's `layers`, a group's `group`); nil removes it.
    private mutating func setEntry(_ path: ArraySlice<Int>, _ value: HarnessJSON?, of key: String) {
        guard let first = path.first, var list = self[key]?.arrayValue, list.indices.contains(first) else { return }
        if path.count == 1 {
            if let value { list[first] = value } else { list.remove(at: first) }
        } else {
            list[first].setEntry(path.dropFirst(), value, of: "group")
        }
        self[key] = .array(list)
    }

    /// Inserts `value` into the list of the group at `parent` (the job's layers for `[]`) at `index`.
    mutating func insertLayer(_ value: HarnessJSON, into parent: HarnessLayerPath, at index: Int) {
        if parent.isEmpty {
            var list = self["layers"]?.arrayValue ?? []
            list.insert(value, at: min(index, list.count))
            self["layers"] = .array(list)
            return
        }
        guard var group = layer(parent) else { return }
        var list = group["group"]?.arrayValue ?? []
        list.insert(value, at: min(index, list.count))
        group["group"] = .array(list)
        setLayer(parent, group)
    }

    /// Every layer and group, depth first, in drawing order.
    var layerPaths: [HarnessLayerPath] {
        var paths: [HarnessLayerPath] = []
        func walk(_ list: [HarnessJSON], _ prefix: HarnessLayerPath) {
            for (index, layer) in list.enumerated() {
                paths.append(prefix + [index])
                if let children = layer["group"]?.arrayValue { walk(children, prefix + [index]) }
            }
        }
        walk(self["layers"]?.arrayValue ?? [], [])
        return paths
    }

    /// The effect layers (not groups).
    var effectLayerPaths: [HarnessLayerPath] { layerPaths.filter { layer($0)?["effect"] != nil } }

    /// The groups, and `[]` for the job's own list.
    var listPaths: [HarnessLayerPath] { [[]] + layerPaths.filter { layer($0)?["group"] != nil } }

    /// The ids of the effects the job uses, sorted.
    var effects: [String] {
        Array(Set(effectLayerPaths.compactMap { layer($0)?["effect"]?.stringValue })).sorted()
    }

    /// The value at a key path such as `canvas.width` (object members only).
    func value(at keyPath: String) -> HarnessJSON? {
        var current: HarnessJSON? = self
        for key in keyPath.split(separator: ".") { current = current?[String(key)] }
        return current
    }

    /// Sets (nil: removes) the value at a key path of object members, creating objects on the way.
    mutating func set(_ keyPath: String, _ value: HarnessJSON?) {
        let keys = keyPath.split(separator: ".").map(String.init)
        guard let first = keys.first else { return }
        if keys.count == 1 {
            self[first] = value
            return
        }
        var child = self[first] ?? .object([:])
        child.set(keys.dropFirst().joined(separator: "."), value)
        if child == .object([:]) && value == nil {
            self[first] = nil
        } else {
            self[first] = child
        }
    }
}
