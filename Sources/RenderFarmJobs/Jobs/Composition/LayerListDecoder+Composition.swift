import Motion
import StrictJSON

/// A layer that places another job file (the RenderFarm article ComposingLayers, "Compositions"):
///
///     {"composition": "comps/banner.json", "params": {"user": "Ana"}, "start": 1,
///      "transform": {"position": [540, 1500]}}
///
/// becomes a group of the file's layers, with its `parameters` filled, drawn inside the file's canvas and
/// ending with its `duration`. Its layers see the file's canvas, duration, seed and folder as their job's.
extension LayerListDecoder {
    static let compositionKeys = ["composition", "params"] + fieldKeys

    /// Where the layers being read come from: the composition files that hold them (outermost first), the
    /// innermost one's canvas, duration and seed, and the index its first effect layer has in the job.
    struct Scope {
        var files: [String]
        var canvas: Canvas
        var duration: Double
        var seed: UInt64
        var firstLayer: Int
    }

    /// The most compositions a job places, counting every placement at every depth.
    static let maxCompositions = 64

    mutating func decodeComposition(_ reader: ObjectReader, depth: Int) -> LayerNode? {
        reader.rejectUnknownKeys(Self.compositionKeys)
        for key in ["effect", "group"] where reader.object[key] != nil {
            issues.add(reader.childPath(key), "a layer has an effect, a group or a composition: only one of them")
        }
        let name = reader.string("composition", default: nil, maxLength: 1024)
        guard let name, let placed = readComposition(name, reader: reader, depth: depth) else {
            _ = decodeFields(reader)
            return nil
        }
        let (file, inner) = placed
        let canvas = JobDecoder.decodeCanvas(inner) ?? Canvas(width: 375, height: 667, scale: 1, background: .clear)
        let duration = inner.number(
            "duration", default: nil, in: 0...JobDecoder.Limits.maxDuration, exclusiveLowerBound: true)
        let seed = UInt64(inner.integer("seed", default: 0, in: 0...(1 << 53)) ?? 0)
        let declared = CompositionParameters.declarations(inner)
        let given = reader.object("params")?.object ?? JSONObject()
        let typed = variant?.typed(given, layer: reader.path, parameters: declared) ?? given
        let values = CompositionParameters.values(
            typed, declared: declared, path: reader.childPath("params"), issues: issues)
        var fields = decodeFields(reader, anchor: Point(canvas.width / 2, canvas.height / 2))
        guard let duration, let list = JobDecoder.layerList(inner) else { return nil }
        // It ends with the file's duration, unless it loops.
        if fields.loop == nil { fields.end = min(fields.end ?? .infinity, fields.start + duration / fields.speed) }

        let outer = (scope, canvasCentre)
        defer { (scope, canvasCentre) = outer }
        scope = Scope(
            files: (scope?.files ?? []) + [file], canvas: canvas, duration: duration, seed: seed,
            firstLayer: layers.count)
        canvasCentre = Point(canvas.width / 2, canvas.height / 2)
        let path = inner.childPath("layers")
        let filled = CompositionParameters.fill(list, path: path, values: values, issues: issues)
        let disabledBefore = disabled.count
        let children = decodeList(filled, path: path, depth: depth + 1)
        if children.isEmpty {
            if disabled.count > disabledBefore { return nil }
            issues.add(path, "no layer to draw")
            return nil
        }
        return LayerNode(
            fields: fields, content: .group(children), path: reader.path,
            canvas: CompositionCanvas(
                file: file, width: canvas.width, height: canvas.height, background: canvas.background))
    }

    /// The composition file `name` that `reader`'s layer places, read and checked to be a job file that is
    /// not placing itself; nil when it cannot be used (the problem told).
    private mutating func readComposition(_ name: String, reader: ObjectReader, depth: Int)
        -> (file: String, reader: ObjectReader)?
    {
        let place = reader.childPath("composition")
        guard depth < Self.maxDepth else {
            issues.add(place, "groups and compositions nest at most \(Self.maxDepth) deep")
            return nil
        }
        guard var files = compositionFiles else {
            issues.add(place, "a composition is read from the job's folder: load the job from its file")
            return nil
        }
        compositionsPlaced += 1
        guard compositionsPlaced <= Self.maxCompositions else {
            if compositionsPlaced == Self.maxCompositions + 1 {
                issues.add(place, "more than \(Self.maxCompositions) compositions placed in one job")
            }
            return nil
        }
        let read = files.document(name, from: scope?.folder ?? "")
        compositionFiles = files
        let file: String
        let document: JSONValue
        switch read {
        case .failure(let problem):
            issues.add(place, problem.message)
            return nil
        case .success(let found): (file, document) = found
        }
        let chain = [files.jobFile] + (scope?.files ?? []) + [file]
        if let first = chain.firstIndex(of: file), first < chain.count - 1 {
            issues.add(
                place,
                "\(file) places itself (\(chain[first...].joined(separator: " → "))): a composition cannot hold itself")
            return nil
        }
        guard let object = document.objectValue else {
            issues.add(place, "\(file) is no job file: expected a JSON object, got \(document.typeName)")
            return nil
        }
        let inner = ObjectReader(object: object, path: place, issues: issues)
        inner.rejectUnknownKeys(JobDecoder.topLevelKeys)
        if object["variants"] != nil {
            issues.add(
                inner.childPath("variants"),
                "a composition has no variants: the job that places it sets its parameters (\"params\")")
            return nil
        }
        return (file, inner)
    }
}

extension LayerListDecoder.Scope {
    /// The innermost file's folder, relative to the job's folder.
    var folder: String { layer(firstLayer).folder }

    /// The scope of the job's effect layer `index`, one of this composition's.
    func layer(_ index: Int) -> LayerScope {
        LayerScope(
            files: files, width: canvas.width, height: canvas.height, duration: duration, seed: seed,
            index: index - firstLayer)
    }
}
