import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The process figures every Prometheus exporter gives (`process_*`), read from `/proc/self` at each scrape.
enum ProcessMetrics {
    /// The `process_*` series in the text exposition format; empty where `/proc` is missing.
    static func render() -> String {
        #if os(Linux)
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return "" }
        // The fields after the command name (which may hold spaces), starting with field 3 (state).
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        func field(_ number: Int) -> Double? { fields.count > number - 3 ? Double(fields[number - 3]) : nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))
        var out = ""
        func series(_ name: String, _ type: String, _ help: String, _ value: Double?) {
            guard let value else { return }
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(format(value))\n"
        }
        if let user = field(14), let system = field(15) {
            series("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.", (user + system) / ticks)
        }
        series("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", field(24).map { $0 * pageSize })
        series("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", field(23))
        if let startTicks = field(22), let bootTime = bootTime() {
            series("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.",
                   bootTime + startTicks / ticks)
        }
        let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
        series("process_open_fds", "gauge", "Number of open file descriptors.", descriptors.map(Double.init))
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            series("process_max_fds", "gauge", "Maximum number of open file descriptors.", Double(limit.rlim_cur))
        }
        series("process_threads", "gauge", "Number of OS threads in the process.", field(20))
        return out
        #else
        return ""
        #endif
    }

    /// The boot time (`btime` of `/proc/stat`), in seconds since the epoch.
    private static func bootTime() -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        for line in stat.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst(6).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
