/// A layer's simulation checkpoints in the job's cache folder (``EffectCache``), which every run and shard
/// of the job shares: a run far into a long layer resumes from the latest one at or before its first
/// frame instead of simulating from the layer's start, and saves those it passes that are missing.
///
/// Sample n is job frame n, at layer time n / fps − layerStart. The checkpoint of epoch e holds the state
/// before sample e · `epoch`; its file is named by a key over everything that state depends on (see
/// <doc:StreamLengthEffects>, "Physics checkpoints"), so a file that is found is right whatever was edited since.
public struct PhysicsCheckpoints: Sendable {
    public let cache: EffectCache
    public let fps: Double
    public let layerStart: Double
    /// Samples per epoch.
    public let epoch: Int
    /// Items that may enter up to this long after an epoch's last sample count in its key: far more than
    /// the one step by which rounding may add an item early.
    static let entryMargin = 1.0

    public init(cache: EffectCache, fps: Double, layerStart: Double, epoch: Int = PhysicsSimulation.epochSamples) {
        self.cache = cache
        self.fps = fps
        self.layerStart = layerStart
        self.epoch = max(1, epoch)
    }

    /// The layer time of sample `sample`.
    public func time(_ sample: Int) -> Double { Double(sample) / fps - layerStart }

    /// The file name of epoch `index`'s checkpoint under `key`.
    static func name(epoch index: Int, key: FrameKey) -> String { "physics-\(index)-\(key)" }

    /// The keys of the checkpoints of epochs 1, 2, … whose sample is at most `last` (element i for epoch
    /// i + 1); none when an item has an approach (a motion given as a closure, which no key can cover).
    func keys(_ scene: PhysicsScene, through last: Int) -> [FrameKey] {
        guard last >= epoch, scene.items.allSatisfy({ $0.approach == nil }) else { return [] }
        var base = FrameKey.Hasher()
        base.combine("renderfarm.physics.checkpoint")
        base.combine(Int(PhysicsCheckpoint.formatVersion))
        base.combine(ChipmunkWorld.version)
        base.combine(fps)
        base.combine(layerStart)
        base.combine(epoch)
        Self.combine(scene, into: &base)
        // Items in the order they may enter, so each epoch's key extends the previous one's.
        let order = scene.items.indices.sorted { (scene.items[$0].entry, $0) < (scene.items[$1].entry, $1) }
        var next = 0
        return (1...(last / epoch)).map { index in
            let horizon = time(index * epoch - 1) + Self.entryMargin
            while next < order.count, scene.items[order[next]].entry <= horizon {
                base.combine(Self.key(of: scene.items[order[next]], index: order[next]))
                next += 1
            }
            var key = base
            key.combine(index)
            return key.finalize()
        }
    }

    /// The checkpoint of epoch `index` saved under `key`, if its file is there and passes every check.
    func load(epoch index: Int, key: FrameKey, scene: PhysicsScene) -> PhysicsCheckpoint? {
        guard let bytes = cache.read(Self.name(epoch: index, key: key)),
            let checkpoint = PhysicsCheckpoint(bytes: bytes, key: key),
            checkpoint.fits(scene, sample: index * epoch)
        else { return nil }
        return checkpoint
    }

    /// Saves `checkpoint` as epoch `index`'s under `key` unless a good file is there already.
    func save(_ checkpoint: PhysicsCheckpoint, epoch index: Int, key: FrameKey, scene: PhysicsScene) {
        guard load(epoch: index, key: key, scene: scene) == nil else { return }
        cache.write(Self.name(epoch: index, key: key), checkpoint.bytes(key: key))
    }

    /// Everything about the scene that is not an item.
    private static func combine(_ scene: PhysicsScene, into key: inout FrameKey.Hasher) {
        key.combine(scene.gravity)
        key.combine(scene.barriers.count)
        for barrier in scene.barriers {
            key.combine(barrier.from)
            key.combine(barrier.to)
            key.combine(barrier.elasticity)
            key.combine(barrier.friction)
        }
        let material = scene.material
        for value in [material.elasticity, material.friction, material.density, material.resistance] {
            key.combine(value)
        }
        key.combine(material.allowsRotation)
        key.combine(scene.itemsCollide)
        key.combine(scene.restThreshold)
        key.combine(scene.timestep)
        key.combine(scene.canvas != nil)
        if let canvas = scene.canvas {
            key.combine(Point(canvas.x, canvas.y))
            key.combine(Size(width: canvas.width, height: canvas.height))
        }
    }

    /// Everything about item `index`.
    private static func key(of item: PhysicsItem, index: Int) -> FrameKey {
        var key = FrameKey.Hasher()
        key.combine(index)
        key.combine(item.body.isDisc)
        key.combine(item.body.size)
        key.combine(item.position)
        key.combine(item.velocity)
        key.combine(item.spawnTime)
        key.combine(item.expiry != nil)
        key.combine(item.expiry ?? 0)
        return key.finalize()
    }
}
