import StrictJSON

/// A problem an effect reports; `parameter` names the offending parameter when there is one.
///
/// One error can carry several problems (`more`), so `create` reports every bad value of a layer at
/// once; its description has one problem per line, as the ABI's error buffer expects.
public struct EffectError: Error, Equatable, CustomStringConvertible {
    public var parameter: String?
    public var message: String
    /// Further problems found in the same pass.
    public var more: [EffectError] = []

    public init(parameter: String? = nil, _ message: String) {
        self.parameter = parameter
        self.message = message
    }

    /// One error holding every problem of `problems`; nil when there are none.
    public init?(collecting problems: [EffectError]) {
        let all = problems.flatMap(\.all)
        guard let first = all.first else { return nil }
        self.init(parameter: first.parameter, first.message)
        more = Array(all.dropFirst())
    }

    /// Every problem, one per element, the first one first.
    public var all: [EffectError] { [EffectError(parameter: parameter, message)] + more.flatMap(\.all) }

    public var description: String {
        all.map { problem in problem.parameter.map { "\($0): \(problem.message)" } ?? problem.message }
            .joined(separator: "\n")
    }
}

/// Collects the problems of a layer's parameters while `create` reads them, so it can report every
/// problem at once instead of the first:
///
/// ```swift
/// var problems = EffectProblems()
/// let size = problems.check { () throws(EffectError) in try parameters.size("size") }
/// try problems.throwIfAny()
/// ```
public struct EffectProblems {
    public private(set) var errors: [EffectError] = []

    public init() {}

    /// The value `body` returns, or nil after recording its problems.
    public mutating func check<T>(_ body: () throws(EffectError) -> T) -> T? {
        do {
            return try body()
        } catch {
            add(error)
            return nil
        }
    }

    /// Records every problem of `error` (each only once: a shared default may fail for many items).
    public mutating func add(_ error: EffectError) {
        for problem in error.all where !errors.contains(problem) { errors.append(problem) }
    }

    public var isEmpty: Bool { errors.isEmpty }

    /// Throws one error with every recorded problem, if there is any.
    public func throwIfAny() throws(EffectError) {
        if let error = EffectError(collecting: errors) { throw error }
    }
}

extension EffectError {
    /// `2 is out of range (allowed: 0.01…1)` or `expected a number in 0.01…1, got "x"`: the host's words.
    static func outOfRange(_ parameter: String, _ value: JSONValue, _ range: ClosedRange<Double>, integer: Bool = false)
        -> EffectError
    {
        let allowed = JSONValue.describe(range)
        let kind = integer ? "an integer" : "a number"
        guard let number = value.doubleValue, number.isFinite, !integer || number.rounded() == number else {
            return EffectError(parameter: parameter, "expected \(kind) in \(allowed), got \(value.shortText)")
        }
        return EffectError(parameter: parameter, "\(JSONValue.format(number)) is out of range (allowed: \(allowed))")
    }
}
