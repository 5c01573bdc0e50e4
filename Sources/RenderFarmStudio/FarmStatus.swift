import Foundation
import RenderFarm
import RenderFarmOutput
import StrictJSON

/// The farm view's data: every render folder under the root (a folder with a job record, whole
/// renders and shards alike), each read by `FolderStatus` exactly as `renderfarm status --json`.
enum FarmStatus {
    /// Render folders under `root`, sorted, and every folder looked into to find them; hidden folders
    /// are skipped and the search is bounded in depth.
    static func scan(under root: String, depth: Int = StudioLimits.folderSearchDepth)
        -> (renderFolders: [String], searched: [String])
    {
        var found: [String] = []
        var searched: [String] = []
        var pending = [(root, 0)]
        let files = FileManager.default
        while let (folder, level) = pending.popLast() {
            if files.fileExists(atPath: (folder as NSString).appendingPathComponent(JobRecord.fileName)) {
                found.append(folder)
                continue
            }
            searched.append(folder)
            guard level < depth, let names = try? files.contentsOfDirectory(atPath: folder) else { continue }
            for name in names where !name.hasPrefix(".") {
                let path = (folder as NSString).appendingPathComponent(name)
                var isDirectory: ObjCBool = false
                // Symbolic links are not followed: the farm view stays under the root.
                let attributes = try? files.attributesOfItem(atPath: path)
                guard attributes?[.type] as? FileAttributeType == .typeDirectory,
                    files.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue
                else { continue }
                pending.append((path, level + 1))
            }
        }
        return (found.sorted(), searched)
    }

    /// One folder's `status --json` object, or its error.
    static func status(of folder: String) -> JSONValue {
        do {
            return try FolderStatus.read(folder).json
        } catch {
            return .object(["folder": .string(folder), "error": .string("\(error)")])
        }
    }

    /// `GET /api/status`: the root searched now, and one `status --json` object per folder (or its error).
    static func json(root: String) -> JSONValue {
        json(root: root, statuses: scan(under: root).renderFolders.map(status(of:)))
    }

    /// The root and the `status --json` objects of its render folders.
    static func json(root: String, statuses: [JSONValue]) -> JSONValue {
        .object(["root": .string(root), "folders": .array(statuses)])
    }
}
