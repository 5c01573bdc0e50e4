import CSandbox
import CairoKit
import Foundation

/// Shared memory a worker draws its frames' pixels into (article UntrustedPlugins), so that 4 MB a frame do not
/// cross the socket twice: the render makes a sealed memory file as large as the largest canvas of the worker's
/// jobs (`rf_sandbox_frame_memory`: it cannot shrink, so the render never reads past its end), maps it read-only
/// and gives it to the worker as descriptor 4, which the worker maps writable and closes before it loads a
/// plugin. A frame's reply `shared DRAW` says its pixels are there; the render encodes them from its mapping
/// into its own buffers, reading each pixel once, so a worker that changes them meanwhile changes only the
/// pixels of its own frame, which is still a whole PNG the render made. Without the memory file (the kernel
/// refused it) the pixels follow the reply on the socket (`pixels DRAW`).
final class WorkerFrameMemory {
    /// The worker's descriptor of the memory file.
    static let childDescriptor: Int32 = 4

    /// The mapping: read-only in the render, writable in the worker.
    let bytes: UnsafeMutableRawBufferPointer
    /// The memory file until the worker has it (`spawned`); -1 in a worker and afterwards.
    private(set) var descriptor: Int32

    /// A memory file of `count` bytes mapped read-only, or nil when the kernel refuses one.
    init?(count: Int) {
        guard count > 0 else { return nil }
        let descriptor = rf_sandbox_frame_memory(count)
        guard descriptor >= 0 else { return nil }
        guard let mapping = Self.map(descriptor, count: count, protection: PROT_READ) else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        bytes = mapping
    }

    private init(mapping: UnsafeMutableRawBufferPointer) {
        bytes = mapping
        descriptor = -1
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        munmap(bytes.baseAddress, bytes.count)
    }

    /// Closes this process's descriptor once the worker has its own copy; the mapping stays.
    func spawned() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }

    /// In a worker: the memory file its render gave it as descriptor 4, mapped writable, with the descriptor
    /// closed; nil when there is none (`plugin check`'s workers, or the render could not make one).
    static func inherited() -> WorkerFrameMemory? {
        var count = 0
        guard rf_sandbox_is_frame_memory(childDescriptor, &count) != 0 else { return nil }
        defer { close(childDescriptor) }
        guard count > 0, let mapping = map(childDescriptor, count: count, protection: PROT_READ | PROT_WRITE) else {
            return nil
        }
        return WorkerFrameMemory(mapping: mapping)
    }

    private static func map(_ descriptor: Int32, count: Int, protection: Int32) -> UnsafeMutableRawBufferPointer? {
        let address = mmap(nil, count, protection, MAP_SHARED, descriptor, 0)
        guard let address, address != MAP_FAILED else { return nil }
        return UnsafeMutableRawBufferPointer(start: address, count: count)
    }

    /// In a worker: copies the pixels of `surface` into the memory, rows without padding; false when they do not
    /// fit (they are then sent on the socket).
    func store(_ surface: ImageSurface) -> Bool {
        let row = surface.width * 4
        guard let base = bytes.baseAddress, row * surface.height <= bytes.count else { return false }
        if surface.stride == row {
            base.copyMemory(from: surface.bytes, byteCount: row * surface.height)
        } else {
            for y in 0..<surface.height {
                (base + y * row).copyMemory(from: surface.bytes + y * surface.stride, byteCount: row)
            }
        }
        return true
    }
}
