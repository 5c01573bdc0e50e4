import FileInput
import StrictJSON

/// Reads the composition files a job's layers place (the RenderFarm article ComposingLayers, "Compositions").
/// A file is named relative to the folder of the file that places it and must lie inside that folder, as an
/// asset path must (`ConfinedPath`); it is read through `InputFile` with a job file's limits, once per job
/// however often it is placed.
package struct CompositionFiles: Sendable {
    /// The job file's folder (absolute).
    package let root: String
    /// The job file's name in it.
    package let jobFile: String
    /// Each file read, by the folder and name that placed it.
    private var read: [[String]: Result<JSONValue, Problem>] = [:]

    package init(root: String, jobFile: String) {
        self.root = root
        self.jobFile = jobFile
    }

    /// Why a composition file cannot be used, in words that name it.
    package struct Problem: Error, Equatable {
        package var message: String
    }

    /// The file `name` (relative to `folder`, itself relative to `root`) as its path relative to `root`, and its
    /// parsed content.
    mutating func document(_ name: String, from folder: String) -> Result<(file: String, document: JSONValue), Problem>
    {
        guard !name.hasPrefix("/") else {
            return .failure(Problem(message: "\(name) is absolute: name a composition relative to the file placing it"))
        }
        let file = Self.joined(folder, name)
        if let known = read[[folder, name]] { return known.map { (file, $0) } }
        let result = load(name, file: file, from: folder)
        read[[folder, name]] = result
        return result.map { (file, $0) }
    }

    private func load(_ name: String, file: String, from folder: String) -> Result<JSONValue, Problem> {
        let bytes: [UInt8]
        do {
            let resolved = try ConfinedPath.resolve(name, in: Self.joined(root, folder))
            bytes = try InputFile.read(resolved, limit: JobLoader.maxFileBytes, followLastLink: false)
        } catch let problem as ConfinedPath.Problem {
            return .failure(Problem(message: problem.description))
        } catch let error as InputFileError {
            return .failure(Problem(message: error.message(naming: file)))
        } catch {
            return .failure(Problem(message: "\(file): \(error)"))
        }
        do {
            return .success(try JSONParser.parse(bytes, limits: JobLoader.parseLimits))
        } catch {
            return .failure(Problem(message: "\(file): \(error.description)"))
        }
    }

    /// `name` inside `folder`, without "." components and with ".." taken back (lexically: `ConfinedPath` checks
    /// that the file lies inside the folder).
    static func joined(_ folder: String, _ name: String) -> String {
        ConfinedPath.lexicallyNormal(folder.isEmpty ? name : folder + "/" + name)
    }
}
