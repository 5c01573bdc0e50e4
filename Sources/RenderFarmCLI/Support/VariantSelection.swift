import RenderFarm
import RenderFarmJobs
import StrictJSON

/// `--variants NAMES`: the variants to keep of jobs with variants; other jobs are kept whole.
enum VariantSelection {
    struct Failure: Error {
        var message: String
    }

    /// Keeps the variants named in `text` (comma-separated names, 0-based indexes or index
    /// ranges `a-b`); every item must pick at least one variant.
    static func pick(_ text: String, from jobs: [LoadedJob]) -> Result<[LoadedJob], Failure> {
        let variants = jobs.compactMap(\.variant)
        guard !variants.isEmpty else {
            return .failure(Failure(message: "--variants: none of the jobs has variants"))
        }
        var chosen: Set<String> = []  // "file\u{0}name"
        for item in text.split(separator: ",").map({ String($0).trimmingCharacters(in: .whitespaces) }) {
            let matches = variants.filter { variant in
                if variant.name == item { return true }
                if let index = Int(item) { return variant.index == index }
                let bounds = item.split(separator: "-").compactMap { Int($0) }
                return bounds.count == 2 && (bounds[0]...max(bounds[0], bounds[1])).contains(variant.index)
            }
            guard !matches.isEmpty else {
                let names = variants.map(\.name)
                return .failure(
                    Failure(
                        message: "--variants: no variant \"\(item)\"" + Suggestion.hint(for: item, in: names)
                            + "; variants: " + names.prefix(20).joined(separator: ", ")
                            + (names.count > 20 ? ", …" : "")))
            }
            for variant in matches { chosen.insert(variant.batch.file + "\u{0}" + variant.name) }
        }
        return .success(
            jobs.filter { job in job.variant.map { chosen.contains($0.batch.file + "\u{0}" + $0.name) } ?? true })
    }
}
