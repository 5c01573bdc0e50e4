/// Every command of `renderfarm`: what the dispatcher runs and what `help`, shell completions and the man page list.
enum CommandList {
    /// In the order the overview lists them.
    static var listed: [any Command.Type] {
        [
            RenderCommand.self, ValidateCommand.self, PrepareCommand.self, TraceCommand.self, PluginsCommand.self,
            EncodeCommand.self, ExportOTIOCommand.self, PreviewCommand.self, CompareCommand.self, MergeCommand.self,
            SubmitCommand.self, StatusCommand.self, UnpackAlphaCommand.self, StudioCommand.self, MixCommand.self, DocsCommand.self,
        ] + sdk
    }

    /// The plugin SDK's commands: scaffolding, conformance checks, shell completions, man page.
    static var sdk: [any Command.Type] {
        [PluginNewCommand.self, PluginCheckCommand.self, CompletionCommand.self, ManPageCommand.self]
    }

    /// Commands that other commands start, left out of the overview.
    static var hidden: [any Command.Type] { [WorkerCommand.self, CheckWorkerCommand.self] }
}
