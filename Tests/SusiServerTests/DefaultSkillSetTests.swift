import Foundation
import SusiJSON
import Testing

@testable import SusiServer

@Suite struct DefaultSkillSetTests {
  @Test func loadsWithoutWarnings() throws {
    let server = try TestServer()
    #expect(server.handler.loadWarnings == [])
    #expect(server.handler.library.skills.count >= 30)
  }
}
