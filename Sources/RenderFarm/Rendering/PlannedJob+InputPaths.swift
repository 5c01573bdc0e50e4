extension PlannedJob {
    /// The absolute paths of the files the layers read (`LayerInput`: event logs and the files the
    /// plugins name), as they were hashed into the fingerprint: a long-lived plan (the studio's)
    /// watches them and plans again when one changes.
    package var inputPaths: [String] { Array(Set(inputs.compactMap { $0.read?.path })).sorted() }
}
