import Foundation
import Synchronization

/// Watches Swift's cooperative pool of the test process, on a thread of its own: every 100 ms it asks the
/// pool for a job, and a job kept waiting over a second is said on standard error, with when. The
/// in-process services answer on that pool (two threads on two cores), so a test that holds both threads
/// with synchronous work delays every suite beside it past its timeouts; the line says when that happened
/// (dev-idp answers on a thread of its own, as a provider on the internet would). With `TEST_STALL_WATCH` naming a directory, the first stalls also get
/// every thread's stack written there (`gdb`), which names the test that held the pool.
public enum StallWatch {
    private static let started = Mutex(false)

    /// Starts the watch once per process (``TestStack`` does, on its first use).
    public static func start() {
        let first = started.withLock { started in
            defer { started = true }
            return !started
        }
        guard first else { return }
        let directory = ProcessInfo.processInfo.environment["TEST_STALL_WATCH"].flatMap { $0.isEmpty ? nil : $0 }
        Thread {
            var dumps = 0
            while true {
                let ran = Atomic<Bool>(false)
                let asked = ContinuousClock.now
                Task.detached { ran.store(true, ordering: .releasing) }
                var dumped = false
                while !ran.load(ordering: .acquiring) {
                    usleep(10_000)
                    if let directory, !dumped, dumps < 5, ContinuousClock.now - asked > .seconds(1) {
                        dumped = true
                        dumps += 1
                        writeStacks(to: "\(directory)/stall-\(dumps).txt")
                    }
                }
                let waited = ContinuousClock.now - asked
                if waited > .seconds(1) {
                    let note = dumped ? " (stacks in \(directory ?? "")/stall-\(dumps).txt, taken while it waited)" : ""
                    FileHandle.standardError.write(Data("STALL: Swift's cooperative pool ran no job for \(waited), until \(Date())\(note)\n".utf8))
                }
                usleep(100_000)
            }
        }.start()
    }

    /// Every thread's stack of this process, by gdb (attached for a moment; nothing when gdb is missing).
    private static func writeStacks(to file: String) {
        guard FileManager.default.createFile(atPath: file, contents: nil), let output = FileHandle(forWritingAtPath: file) else { return }
        defer { try? output.close() }
        let gdb = Process()
        gdb.executableURL = URL(fileURLWithPath: "/usr/bin/gdb")
        gdb.arguments = ["-batch", "-p", String(getpid()), "-ex", "thread apply all bt 30"]
        gdb.standardOutput = output
        gdb.standardError = FileHandle.nullDevice
        guard (try? gdb.run()) != nil else { return }
        gdb.waitUntilExit()
    }
}
