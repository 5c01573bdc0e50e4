import CCairo

/// Facts about the cairo library the process runs with.
public enum CairoLibrary {
    /// The run-time version, e.g. "1.16.0" (recorded in every manifest).
    public static var version: String { String(cString: cairo_version_string()) }
}
