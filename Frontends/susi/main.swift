// susi: a SUSI.AI client for the terminal, for programs and for services.
//
// This file only lists the commands; each lives with its frontend.

import CEpoll
import Foundation
import SusiFrontendSupport
import SusiJSONL
import SusiReplay
import SusiText
import SusiWeb
import SusiWebhook

StandardStream.ignoreBrokenPipes()
// Under 60 s of overload, the default malloc arenas alone kept about 30 MB of freed memory in
// `susi serve`; two arenas cost no measurable speed here.
susi_limit_malloc_arenas(2)

let app = CommandLineApp(
  commands: TextFrontend.commands + [
    JSONLinesCommand.command,
    ReplayCommand.command,
    ServerCommandSpec.command,
    ServeCommand.command(web: WebCommand.mount),
    WebCommand.command,
  ],
  defaultCommand: "chat", version: SusiVersion.current)

exit(
  await app.run(
    Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
