// susi: a SUSI.AI client for the terminal, for programs and for services.
//
// This file only lists the commands; each lives with its frontend.

import CEpoll
import Foundation
import SusiCommandLine
import SusiJSONLines
import SusiServe
import SusiText
import SusiTools
import SusiWeb

StandardStream.ignoreBrokenPipes()
// Under 60 s of overload `susi serve` peaked at 53 MB with two malloc arenas and at 85 MB, still
// growing, with glibc's default (up to 8 per core), at no measurable cost in speed.
susi_limit_malloc_arenas(2)

let commands =
  TextFrontend.commands + [
    JSONLinesCommand.command,
    ReplayCommand.command,
    LogCopyCommand.command,
    ServerCommand.command,
    ServeCommand.command(web: WebCommand.mount),
    WebCommand.command,
    ConfigCommand.command,
  ]
let app = CommandLineApp(
  commands: ToolCommands.adding(
    to: commands, version: SusiVersion.current,
    more: {
      InstallCommand.commands(completions: $0, manPage: $1) { WebPages.installed()?.folder }
    }),
  defaultCommand: "chat", version: SusiVersion.current)

exit(
  await app.run(
    Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
