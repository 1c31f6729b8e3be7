import SusiHTTPTypes
import Testing

@testable import SusiServe

/// The one table of admin tasks that the /admin routes and `susi serve keys|groups|subscribers`
/// both run: each row must be reachable one way at least, and read only what its route and its
/// command line give it.
@Suite struct AdminTaskTests {
  @Test func everyTaskHasACommandOrARouteAndNoTwoShareOne() {
    let words = AdminTask.all.compactMap(\.words)
    let routes = AdminTask.all.compactMap { $0.route.map { "\($0.method.text) \($0.pattern)" } }
    #expect(AdminTask.all.allSatisfy { $0.words != nil || $0.route != nil })
    #expect(Set(words).count == words.count)
    #expect(Set(routes).count == routes.count)
    #expect(words.allSatisfy { $0.count == 2 })
  }

  @Test func theSegmentsOfARouteAndTheRequiredArgumentsAreAmongTheTaskNeeds() {
    for task in AdminTask.all {
      let segments = (task.route?.pattern ?? "").split(separator: "/").filter { $0.hasPrefix("{") }
        .map { String($0.dropFirst().dropLast()) }
      #expect(Set(segments).isSubset(of: task.needs), "\(task.route?.pattern ?? "")")
      let required = (task.arguments ?? "").split(separator: " ").prefix { !$0.hasPrefix("[") }
      #expect(required.count <= task.needs.count, "\(task.words ?? [])")
    }
  }

  @Test func everyAdminRouteComesFromTheTable() {
    let admin = WebhookRoute.all.filter { $0.pattern.hasPrefix("/admin/") }
    #expect(
      admin.map { "\($0.method.text) \($0.pattern)" }
        == AdminTask.all.compactMap { $0.route.map { "\($0.method.text) \($0.pattern)" } })
    #expect(admin.count == 11)
  }
}
