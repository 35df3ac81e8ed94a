import Foundation
import Postgres
import Testing

extension PostgresServerTests {
    @Suite struct PoolTests {
        @Test func twoHundredConcurrentQueriesOverFourConnections() async throws {
            try await TestDatabase.withClient(poolSize: 4) { client in
                let results = try await withThrowingTaskGroup(of: (Int, Int64, Int64).self) { group in
                    for index in 0..<200 {
                        group.addTask {
                            let row = try #require(try await client.query(
                                "SELECT \(index)::int * 2 AS doubled, pg_backend_pid() AS pid").first)
                            return (index, try row.int("doubled"), try row.int("pid"))
                        }
                    }
                    var results: [(Int, Int64, Int64)] = []
                    for try await result in group { results.append(result) }
                    return results
                }
                #expect(results.count == 200)
                #expect(results.allSatisfy { Int64($0.0 * 2) == $0.1 })
                #expect(Set(results.map(\.2)).count <= 4)
            }
        }

        @Test func waiterTimesOutWhenThePoolStaysBusy() async throws {
            try await TestDatabase.withClient(poolSize: 1, poolTimeout: .milliseconds(200)) { client in
                try await client.withConnection { connection in
                    _ = try await connection.query("SELECT 1")
                    let started = ContinuousClock.now
                    let error = await #expect(throws: PostgresError.self) { try await client.query("SELECT 1") }
                    #expect(error == .poolTimeout)
                    #expect(error?.isUnavailable == true)
                    #expect(ContinuousClock.now - started < .seconds(3))
                }
                #expect(try await client.query("SELECT 2 AS v").first?.int("v") == 2)
            }
        }

        @Test("waiters queued at different times each time out at their own deadline (one timer, re-armed)")
        func staggeredWaitersTimeOutInTurn() async throws {
            try await TestDatabase.withClient(poolSize: 1, poolTimeout: .milliseconds(300)) { client in
                try await client.withConnection { _ in
                    /// How long a query waited before it failed with `poolTimeout`.
                    @Sendable func waited() async -> Duration? {
                        let started = ContinuousClock.now
                        do {
                            _ = try await client.query("SELECT 1")
                            return nil
                        } catch let error as PostgresError where error == .poolTimeout {
                            return ContinuousClock.now - started
                        } catch {
                            return nil
                        }
                    }
                    async let first = waited()
                    // The second joins while the timer is armed for the first: the first's deadline must fail
                    // only the first, and the timer must be armed again for the second's.
                    try await Task.sleep(for: .milliseconds(150))
                    async let second = waited()
                    let (one, two) = await (first, second)
                    for elapsed in [one, two] {
                        #expect(elapsed.map { $0 >= .milliseconds(290) && $0 < .seconds(2) } == true, "waited \(String(describing: elapsed))")
                    }
                }
            }
        }

        @Test func cancelledWaiterLeavesTheQueue() async throws {
            try await TestDatabase.withClient(poolSize: 1, poolTimeout: .seconds(30)) { client in
                try await client.withConnection { _ in
                    let waiter = Task { try await client.query("SELECT 1") }
                    try await Task.sleep(for: .milliseconds(100))
                    let started = ContinuousClock.now
                    waiter.cancel()
                    await #expect(throws: CancellationError.self) { try await waiter.value }
                    #expect(ContinuousClock.now - started < .seconds(10))  // far sooner than the 30 s pool timeout
                }
                #expect(try await client.query("SELECT 3 AS v").first?.int("v") == 3)
            }
        }

        @Test func waitersAreServedInArrivalOrder() async throws {
            try await TestDatabase.withClient(poolSize: 1) { client in
                let order = OrderRecorder()
                var tasks: [Task<Void, any Error>] = []
                try await client.withConnection { _ in
                    for index in 0..<5 {
                        tasks.append(Task {
                            try await client.withConnection { _ in await order.append(index) }
                        })
                        // Let each waiter enqueue before the next one arrives.
                        try await Task.sleep(for: .milliseconds(30))
                    }
                }
                for task in tasks { try await task.value }
                #expect(await order.values == [0, 1, 2, 3, 4])
            }
        }

        @Test func closedClientRefusesWork() async throws {
            let client = try TestDatabase.client()
            #expect(try await client.query("SELECT 1 AS v").first?.int("v") == 1)
            await client.close()
            let error = await #expect(throws: PostgresError.self) { try await client.query("SELECT 1") }
            #expect(error == .closed)
        }
    }
}

actor OrderRecorder {
    private(set) var values: [Int] = []
    func append(_ value: Int) { values.append(value) }
}
