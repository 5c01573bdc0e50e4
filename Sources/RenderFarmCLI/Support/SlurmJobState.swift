/// A Slurm job's state as squeue's `%T` names it: the ones `submit --wait` acts on, and the rest by name.
enum SlurmJobState: Equatable, CustomStringConvertible {
    case pending, running, completed
    /// A state in which the job goes on (CONFIGURING, SUSPENDED, REQUEUED, …).
    case unfinished(String)
    /// A state that ends the job other than COMPLETED (FAILED, CANCELLED, TIMEOUT, NODE_FAIL, …), or one
    /// this version does not know.
    case ended(String)

    /// States other than PENDING and RUNNING after which a job still changes.
    private static let unfinishedNames: Set<String> = [
        "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING", "SIGNALING", "STAGE_OUT", "REQUEUE_HOLD",
        "REQUEUE_FED", "STOPPED",
    ]

    init(_ name: String) {
        switch name {
        case "PENDING": self = .pending
        case "RUNNING": self = .running
        case "COMPLETED": self = .completed
        case _ where Self.unfinishedNames.contains(name): self = .unfinished(name)
        default: self = .ended(name)
        }
    }

    /// Whether the job will not change any more.
    var isFinal: Bool {
        switch self {
        case .pending, .running, .unfinished: false
        case .completed, .ended: true
        }
    }

    /// The name squeue prints.
    var description: String {
        switch self {
        case .pending: "PENDING"
        case .running: "RUNNING"
        case .completed: "COMPLETED"
        case .unfinished(let name), .ended(let name): name
        }
    }
}
