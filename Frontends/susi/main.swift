// susi: a SUSI.AI client for the terminal, for programs and for services.
//
// This file only lists the commands; each lives with its frontend.

import Foundation
import SusiFrontendSupport
import SusiJSONL
import SusiReplay
import SusiText
import SusiWebhook

StandardStream.ignoreBrokenPipes()

let app = CommandLineApp(
  commands: TextFrontend.commands + [
    JSONLinesCommand.command,
    ReplayCommand.command,
    ServerCommandSpec.command,
    ServeCommand.command,
  ],
  defaultCommand: "chat", version: SusiVersion.current)

exit(
  await app.run(
    Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
