import Foundation
import RenderFarmJobs
import RenderFarmPluginABI
import StrictJSON

extension PluginCheck {
    /// The id rule of renderfarm_plugin.h, as the host applies it when loading.
    static func isValidID(_ id: String) -> Bool { LoadedPlugin.idProblem(id) == nil }

    /// MAJOR.MINOR.PATCH with optional `-prerelease` and `+build` (semver.org), no leading zeros.
    static func isSemanticVersion(_ text: String) -> Bool {
        var core = Substring(text)
        if let plus = core.firstIndex(of: "+") {
            guard isDottedLabels(core[core.index(after: plus)...]) else { return false }
            core = core[..<plus]
        }
        if let dash = core.firstIndex(of: "-") {
            guard isDottedLabels(core[core.index(after: dash)...]) else { return false }
            core = core[..<dash]
        }
        let numbers = core.split(separator: ".", omittingEmptySubsequences: false)
        return numbers.count == 3
            && numbers.allSatisfy { number in
                !number.isEmpty && number.allSatisfy { $0.isASCII && $0.isNumber }
                    && (number == "0" || number.first != "0")
            }
    }

    /// A reverse-DNS identifier: at least two dot-separated labels of letters, digits, '-' and
    /// '_', the first starting with a letter (`org.renderfarm.floating-heart`).
    static func isReverseDNS(_ text: String) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && isDottedLabels(Substring(text))
            && labels[0].first.map { $0.isASCII && $0.isLetter } == true
    }

    private static func isDottedLabels(_ text: Substring) -> Bool {
        text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
        }
    }

    /// The rules about the descriptor alone, before any instance is created.
    func descriptorFindings() -> [PluginFinding] {
        let info = plugin.info
        var findings: [PluginFinding] = []
        func rule(_ holds: Bool, _ check: String, _ pass: String, _ fail: String) {
            findings.append(holds ? PluginFinding(.pass, check, pass) : PluginFinding(.failure, check, fail))
        }
        rule(
            Self.isValidID(info.id), "descriptor.id", "\"\(info.id)\"",
            "\"\(info.id)\" \(LoadedPlugin.idProblem(info.id) ?? "breaks the id rule")")
        rule(
            Self.isSemanticVersion(info.version), "descriptor.version", "\(info.version)",
            "\"\(info.version)\" is not a semantic version MAJOR.MINOR.PATCH")
        rule(
            Self.isReverseDNS(info.identifier), "descriptor.identifier", "\(info.identifier)",
            "\"\(info.identifier)\" is not a reverse-DNS identifier like org.example.\(info.id)")
        rule(
            !info.summary.isEmpty && !info.summary.contains("\n"), "descriptor.summary", "one line",
            "the summary must be one non-empty line")
        findings.append(structSizeFinding())
        findings.append(
            PluginFinding(.note, "descriptor.threads", "declares \(info.threadSafety.rawValue) thread safety"))
        findings += parameterFindings()
        return findings
    }

    private func structSizeFinding() -> PluginFinding {
        let size = Int(plugin.descriptor.pointee.struct_size)
        let current = MemoryLayout<rf_plugin>.size
        let oldest = (MemoryLayout<rf_plugin>.offset(of: \rf_plugin.destroy) ?? 0) + MemoryLayout<UnsafeRawPointer>.size
        if size == current { return PluginFinding(.pass, "descriptor.struct_size", "\(size), this header's") }
        if size < oldest {
            return PluginFinding(
                .failure, "descriptor.struct_size",
                "\(size) is smaller than the first ABI v1 descriptor (\(oldest)); set it to sizeof(rf_plugin)")
        }
        if size < current {
            return PluginFinding(
                .note, "descriptor.struct_size",
                "\(size): built against an older v1 header; fields after byte \(size) are not read")
        }
        return PluginFinding(
            .warning, "descriptor.struct_size",
            "\(size) is larger than this host's rf_plugin (\(current)): built against a newer header?")
    }

    private func parameterFindings() -> [PluginFinding] {
        var findings: [PluginFinding] = []
        var seen: Set<String> = []
        for (row, parameter) in plugin.info.parameters.enumerated() {
            let check = "parameter.\(parameter.name.isEmpty ? "#\(row)" : parameter.name)"
            var problems: [String] = []
            if !parameter.name.isEmpty, !seen.insert(parameter.name).inserted {
                problems.append("the name is used twice (the host refuses to load it)")
            }
            problems += parameter.refusals.map { $0 + " (the host refuses to load it)" }
            problems += parameter.advice
            if problems.isEmpty {
                let fallback = parameter.defaultValue.map { "default \($0.serialized())" } ?? "optional"
                findings.append(PluginFinding(.pass, check, "\(parameter.typeText), \(fallback), documented"))
            } else {
                findings.append(PluginFinding(.failure, check, problems.joined(separator: "; ")))
            }
        }
        if plugin.info.parameters.isEmpty { findings.append(PluginFinding(.note, "parameters", "none declared")) }
        return findings
    }
}
