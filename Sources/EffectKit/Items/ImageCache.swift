import CairoKit
import FileInput
import Locking

/// Item pictures decoded once and resampled once, shared by every layer of a job (and by later jobs of
/// the same process that name the same unchanged file).
///
/// Entries are keyed by the open file's identity (device, inode, size, modification and change times), so a
/// file changed between jobs is decoded again. The cache holds at most `budget` bytes of pixels, dropping the
/// least recently used entries; an image a layer still draws stays alive through that layer's look.
/// Each plugin library links its own copy of EffectKit, so layers of different plugins decode separately.
enum ImageCache {
    /// Pixel memory kept for reuse: two images at the asset limit.
    static let budget = 2 * ImageLimits.assets.maxPixels * 4

    private struct Key: Hashable {
        var file: FileIdentity
        /// The size the image was resampled to; 0 × 0 for the decoded original.
        var width: Int
        var height: Int
    }

    private struct Entries {
        var images: [Key: SharedImage] = [:]
        /// The content digest of each file version decoded (a few words each, kept when its pixels are dropped).
        var digests: [FileIdentity: FrameKey] = [:]
        /// Least recently used first.
        var order: [Key] = []
        var bytes = 0

        mutating func get(_ key: Key) -> SharedImage? {
            guard let image = images[key] else { return nil }
            order.removeAll { $0 == key }
            order.append(key)
            return image
        }

        mutating func put(_ image: SharedImage, _ key: Key) {
            guard images[key] == nil, image.byteCount <= ImageCache.budget else { return }
            images[key] = image
            order.append(key)
            bytes += image.byteCount
            while bytes > ImageCache.budget, let oldest = order.first {
                order.removeFirst()
                bytes -= images.removeValue(forKey: oldest)?.byteCount ?? 0
            }
        }
    }

    private static let entries = Locked(Entries())

    /// The PNG in `file` (checked against the asset limits), resampled to `pixels` when it is drawn at
    /// half its size or less; otherwise the decoded original, which drawing scales as before. `digest`: a
    /// hash of the file's bytes, for frame keys that must change with the picture and only with it.
    static func image(_ file: InputFile, drawnAt pixels: (width: Int, height: Int)?) throws(ImageFileError)
        -> (image: SharedImage, digest: FrameKey)
    {
        let key = Key(file: file.identity, width: 0, height: 0)
        let original: SharedImage
        let digest: FrameKey
        if let cached = entries.withLock({ entries in entries.get(key).map { ($0, entries.digests[file.identity]) } }),
            let known = cached.1
        {
            (original, digest) = (cached.0, known)
        } else {
            let bytes: [UInt8]
            do {
                bytes = try file.readAll(limit: ImageLimits.assets.maxFileBytes)
            } catch {
                throw .file(error)
            }
            original = SharedImage(try ImageSurface(png: bytes, path: file.path, limits: .assets))
            digest = FrameKey.digest(of: bytes)
            entries.withLock {
                $0.put(original, key)
                $0.digests[file.identity] = digest
            }
        }
        guard let pixels, pixels.width > 0, pixels.height > 0, pixels.width * 2 <= original.width,
            pixels.height * 2 <= original.height
        else { return (original, digest) }
        let scaledKey = Key(file: file.identity, width: pixels.width, height: pixels.height)
        if let cached = entries.withLock({ $0.get(scaledKey) }) { return (cached, digest) }
        let scaled: SharedImage
        do {
            scaled = try original.scaled(width: pixels.width, height: pixels.height)
        } catch {
            throw .undecodable(path: file.path, error: error)
        }
        entries.withLock { $0.put(scaled, scaledKey) }
        return (scaled, digest)
    }
}
