import Motion

extension JobSpec {
    /// Whether any layer uses a host-level field besides `start` (or a group, or a mask): when not,
    /// the layers are drawn one after the other straight into the frame, as version 1 jobs always were.
    package var isComposed: Bool { composition.contains(where: \.usesComposition) }

    /// How each effect layer's own time follows the job's, in layer order.
    package var clocks: [LayerClock] {
        var clocks = layers.map {
            LayerClock(links: [LayerClock.Link(fields: Self.plainFields(start: $0.start), hasSpan: false)])
        }
        func visit(_ nodes: [LayerNode], outer: [LayerClock.Link]) {
            for node in nodes {
                let links =
                    outer + [
                        LayerClock.Link(
                            fields: node.fields, hasSpan: node.hasSpan, placesComposition: node.canvas != nil)
                    ]
                switch node.content {
                case .effect(let index): clocks[index] = LayerClock(links: links)
                case .group(let children): visit(children, outer: links)
                }
            }
        }
        visit(composition, outer: [])
        return clocks
    }

    /// The times from a frame's, in seconds, at which a motion-blurred layer or group of the job is drawn: every
    /// sample of every layer's motion blur, each once, in order.
    package var motionBlurOffsets: [Double] {
        func blurs(_ nodes: [LayerNode]) -> [MotionBlur] {
            nodes.flatMap { node -> [MotionBlur] in
                var found = node.fields.motionBlur.map { [$0] } ?? []
                if case .group(let children) = node.content { found += blurs(children) }
                return found
            }
        }
        return Set(blurs(composition).flatMap { $0.offsets(fps: fps) }).sorted()
    }

    private static func plainFields(start: Double) -> LayerFields {
        var fields = LayerFields()
        fields.start = start
        return fields
    }
}

extension LayerNode {
    /// Whether it needs more than a plain layer's drawing.
    var usesComposition: Bool {
        if case .group = content { return true }
        return isMask || !fields.isPlain
    }
}

/// How one effect layer's own time follows the job's, through the groups that hold it.
package struct LayerClock: Sendable, Equatable {
    /// The groups that hold the layer, outermost first, then the layer itself.
    package var links: [Link]

    package struct Link: Sendable, Equatable {
        package var fields: LayerFields
        package var hasSpan: Bool
        /// Whether it is a layer placing a composition file: inside it, the file's time is the job's.
        package var placesComposition = false
    }

    /// The layer's own time at job time `t`, or nil when it (or a group holding it) is not drawn then.
    package func localTime(at t: Double) -> Double? {
        // As `linkTimes(at:)`, without its array: the sound of a clip asks at every sample.
        var time = t
        for link in links {
            guard let local = link.fields.localTime(at: time, bounded: link.hasSpan) else { return nil }
            time = local
        }
        return time
    }

    /// The gain of the layer's sound in dB: its own `gain` and its groups'.
    package var gain: Double { links.reduce(0) { $0 + $1.fields.gain } }
    /// Whether the layer's sound is left out: it or a group holding it is `muted`.
    package var muted: Bool { links.contains(where: \.fields.muted) }
    /// How fast the layer's own time runs against the job's: its `speed` times its groups'.
    package var speed: Double { links.reduce(1) { $0 * $1.fields.speed } }

    /// Whether the layer's own time is the job's shifted by `start`: no speed or loop on the way.
    package var isShift: Bool { !links.contains(where: \.fields.remapsTime) }

    /// The job time at which the layer's own time first reaches 0, loops aside (`rf_context.layer_start`).
    package var start: Double { jobTime(0, atLink: links.count) }

    /// The time at which the layer's own time first reaches 0, loops aside, in the time of the innermost
    /// composition holding it (the job's when none): `rf_context.layer_start`, as the composition file gives it
    /// rendered alone.
    package var startInComposition: Double {
        let inside = links.lastIndex(where: \.placesComposition).map { $0 + 1 } ?? 0
        return links[inside...].reversed().reduce(0) { inner, link in link.fields.start + inner / link.fields.speed }
    }

    /// The job time from which the layer is not drawn (its `end` or a group's, loops aside), or nil.
    package var end: Double? {
        links.indices.compactMap { index in links[index].fields.end.map { jobTime($0, atLink: index) } }.min()
    }

    /// The job time at which the layer's own time is `local`, loops aside (their first pass), or nil when the
    /// layer (or a group holding it) is not drawn then: a moment of the layer's items heard in the job.
    package func jobTime(ofLocal local: Double) -> Double? {
        let time = jobTime(local, atLink: links.count)
        guard let back = localTime(at: time), abs(back - local) <= 1e-6 * max(1, abs(local)) else { return nil }
        return time
    }

    /// The layer's name (`mask.layer` and `"at": {"layer": …}` call it by it), if it has one.
    package var name: String? { links.last?.fields.name }

    /// The job time at which the list of `links[index]` (the layer's own time for `links.count`)
    /// is at `t`, loops aside.
    private func jobTime(_ t: Double, atLink index: Int) -> Double {
        links.prefix(index).reversed().reduce(t) { inner, link in link.fields.start + inner / link.fields.speed }
    }
}

extension LayerClock {
    /// Whether the layer or a group holding it has motion blur: then it is drawn at other times than the frame's.
    package var isMotionBlurred: Bool { links.contains { $0.fields.motionBlur != nil } }

    /// Whether the layer or a group holding it has a transform: only then are its points moved.
    package var isPlaced: Bool { links.contains { $0.fields.transform != nil } }

    /// How fast the layer's own time runs against the job's: the product of the speeds on the way
    /// (a loop's wrap aside).
    package var rate: Double { links.reduce(1.0) { $0 * $1.fields.speed } }

    /// Where the layer's points are on the canvas at job time `t`, through its own transform and
    /// those of the groups holding it, each at its own time; nil when the layer is not drawn then.
    package func placement(at t: Double) -> AffineMap? {
        guard let times = linkTimes(at: t) else { return nil }
        var map = AffineMap.identity
        for (link, local) in zip(links, times).reversed() {
            if let transform = link.fields.transform { map = map.then(transform.resolved(at: local).map) }
        }
        return map
    }

    /// Where the layer's point `p` is on the canvas at job time `t` (see `placement(at:)`).
    package func place(_ p: Point, at t: Double) -> Point? { placement(at: t)?.apply(p) }

    /// The product of the opacities of the layer and the groups holding it at job time `t`.
    package func opacity(at t: Double) -> Double? {
        guard let times = linkTimes(at: t) else { return nil }
        return zip(links, times).reduce(1.0) { product, pair in
            product * min(max(pair.0.fields.opacity.value(at: pair.1), 0), 1)
        }
    }

    /// Each link's own time at job time `t`, outermost first.
    private func linkTimes(at t: Double) -> [Double]? {
        var times: [Double] = []
        var time = t
        for link in links {
            guard let local = link.fields.localTime(at: time, bounded: link.hasSpan) else { return nil }
            times.append(local)
            time = local
        }
        return times
    }
}
