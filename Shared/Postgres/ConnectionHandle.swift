import CLibPQ
import Foundation

/// One open libpq connection and the statements prepared on it. The only type that touches libpq.
///
/// `@unchecked Sendable`: a handle is created, used and finished only by blocks on its slot's serial
/// `DispatchQueue`, which serialises every access to the `PGconn` and to `prepared`.
final class ConnectionHandle: @unchecked Sendable {
    /// Most distinct statements kept prepared on one connection before the cache is reset.
    private static let preparedLimit = 512

    private let connection: OpaquePointer
    /// Distinguishes this connection from earlier ones of the same slot, so a pinned session notices a reconnect.
    let generation: UInt64
    private var prepared: [String: String] = [:]
    private var nextStatement = 0

    private init(connection: OpaquePointer, generation: UInt64) {
        self.connection = connection
        self.generation = generation
    }

    deinit {
        PQfinish(connection)
    }

    /// Opens a connection (blocking up to the connect timeout) with `TimeZone=UTC` and ISO dates.
    static func connect(_ configuration: PostgresConfiguration, generation: UInt64) throws -> ConnectionHandle {
        let timeout = configuration.connectTimeout.components
        let timeoutSeconds = max(2, timeout.seconds + (timeout.attoseconds > 0 ? 1 : 0))
        var parameters: [(String, String)] = [
            ("host", configuration.host),
            ("port", String(configuration.port)),
            ("user", configuration.user),
            ("dbname", configuration.database),
            ("sslmode", configuration.tlsMode.rawValue),
            ("connect_timeout", String(timeoutSeconds)),
            ("client_encoding", "UTF8"),
            ("options", "-c TimeZone=UTC -c DateStyle=ISO,YMD -c bytea_output=hex"),
        ]
        if let password = configuration.password { parameters.append(("password", password)) }
        if let name = configuration.applicationName { parameters.append(("application_name", name)) }

        let keywords = parameters.map { strdup($0.0) }
        let values = parameters.map { strdup($0.1) }
        defer {
            keywords.forEach { free($0) }
            values.forEach { free($0) }
        }
        let keywordList = keywords.map { UnsafePointer($0) } + [nil]
        let valueList = values.map { UnsafePointer($0) } + [nil]
        // expand_dbname 0: a database name containing '=' is a name, not a connection string.
        guard let connection = PQconnectdbParams(keywordList, valueList, 0) else {
            throw PostgresError.connectionFailed("libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.message(PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresError.connectionFailed(message)
        }
        PQsetNoticeProcessor(connection, clibpq_ignore_notice, nil)
        return ConnectionHandle(connection: connection, generation: generation)
    }

    /// True when the connection can take a statement: no error status and nothing (such as the server's
    /// goodbye at shutdown, or end of file) waiting on the socket. Costs one `poll`, no round trip.
    var isUsable: Bool {
        guard PQstatus(connection) == CONNECTION_OK else { return false }
        var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
        // We never LISTEN, so input on an idle connection is a termination notice or EOF; drain it to find out.
        for _ in 0..<4 {
            // 0: nothing pending, the usual case; -1 (EINTR): let the statement itself find any problem.
            guard poll(&descriptor, 1, 0) > 0 else { return true }
            guard PQconsumeInput(connection) == 1 else { return false }
            _ = PQisBusy(connection)  // parses what arrived: an idle-time error goes to the notice processor
            guard PQstatus(connection) == CONNECTION_OK else { return false }
        }
        return PQstatus(connection) == CONNECTION_OK
    }

    /// True when libpq has marked the connection bad (the server went away).
    var isBroken: Bool { PQstatus(connection) != CONNECTION_OK }

    /// True when a transaction is open or failed (not idle).
    var isInTransaction: Bool {
        let status = PQtransactionStatus(connection)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Runs `query` as a statement prepared once per connection and cached by its text.
    func query(_ query: PostgresQuery) throws -> PostgresRows {
        let sql = query.sql
        let parameters = query.binds
        var buffer: [UInt8] = []
        var lengths: [Int32] = []
        var offsets: [Int?] = []
        lengths.reserveCapacity(parameters.count)
        offsets.reserveCapacity(parameters.count)
        for parameter in parameters {
            let start = buffer.count
            if let length = try parameter.encode(into: &buffer) {
                offsets.append(start)
                lengths.append(length)
            } else {
                offsets.append(nil)
                lengths.append(0)
            }
        }
        // A trailing byte keeps the buffer non-empty, so an empty bytea still gets a valid pointer.
        buffer.append(0)
        let formats = parameters.map(\.format)

        let name = try preparedName(for: sql, parameterCount: parameters.count)
        do {
            return try execute(name: name, buffer: buffer, offsets: offsets, lengths: lengths, formats: formats)
        } catch let error as PostgresError where error.sqlState == "26000" {
            // The server forgot the statement (DISCARD ALL, pooler): nothing ran, so re-preparing is safe.
            prepared[sql] = nil
            let name = try preparedName(for: sql, parameterCount: parameters.count)
            return try execute(name: name, buffer: buffer, offsets: offsets, lengths: lengths, formats: formats)
        }
    }

    /// Runs `sql`, which may hold several statements, with the simple-query protocol (migrations, BEGIN/COMMIT).
    func execute(_ sql: String) throws -> PostgresRows {
        try check(PQexec(connection, sql))
    }

    private func preparedName(for sql: String, parameterCount: Int) throws -> String {
        if let name = prepared[sql] { return name }
        if prepared.count >= Self.preparedLimit, !isInTransaction {
            _ = try execute("DEALLOCATE ALL")
            prepared.removeAll(keepingCapacity: true)
        }
        nextStatement += 1
        let name = "s\(nextStatement)"
        _ = try check(PQprepare(connection, name, sql, Int32(parameterCount), nil))
        prepared[sql] = name
        return name
    }

    private func execute(name: String, buffer: [UInt8], offsets: [Int?], lengths: [Int32], formats: [Int32]) throws -> PostgresRows {
        let count = offsets.count
        let result: OpaquePointer? = buffer.withUnsafeBufferPointer { bytes in
            withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: max(count, 1)) { values in
                let base = UnsafeRawPointer(bytes.baseAddress!)
                for index in 0..<count {
                    values[index] = offsets[index].map { (base + $0).assumingMemoryBound(to: CChar.self) }
                }
                return PQexecPrepared(connection, name, Int32(count), values.baseAddress, lengths, formats, 0)
            }
        }
        return try check(result)
    }

    /// Materialises a successful result or throws the server's error; always clears the result.
    private func check(_ result: OpaquePointer?) throws -> PostgresRows {
        guard let result else {
            throw lostOrFailed(Self.message(PQerrorMessage(connection)))
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            return Self.materialise(result)
        case PGRES_FATAL_ERROR, PGRES_NONFATAL_ERROR, PGRES_BAD_RESPONSE:
            let message = Self.message(PQresultErrorField(result, CLIBPQ_DIAG_MESSAGE_PRIMARY))
            if PQstatus(connection) != CONNECTION_OK {
                throw PostgresError.connectionLost(message)
            }
            guard let state = PQresultErrorField(result, CLIBPQ_DIAG_SQLSTATE) else {
                throw lostOrFailed(message.isEmpty ? Self.message(PQerrorMessage(connection)) : message)
            }
            throw PostgresError.query(sqlState: String(cString: state), message: message)
        default:
            throw PostgresError.query(sqlState: "XX000", message: "unexpected result status (COPY is not supported)")
        }
    }

    private func lostOrFailed(_ message: String) -> PostgresError {
        PQstatus(connection) == CONNECTION_OK
            ? .query(sqlState: "XX000", message: message)
            : .connectionLost(message)
    }

    private static func materialise(_ result: OpaquePointer) -> PostgresRows {
        let rowCount = PQntuples(result)
        let columnCount = PQnfields(result)
        var columns: [String] = []
        columns.reserveCapacity(Int(columnCount))
        for column in 0..<columnCount {
            columns.append(String(cString: PQfname(result, column)))
        }
        var cells: [String?] = []
        cells.reserveCapacity(Int(rowCount * columnCount))
        for row in 0..<rowCount {
            for column in 0..<columnCount {
                if PQgetisnull(result, row, column) == 1 {
                    cells.append(nil)
                } else {
                    let length = Int(PQgetlength(result, row, column))
                    let value = UnsafeRawPointer(PQgetvalue(result, row, column)!)
                    cells.append(String(decoding: UnsafeRawBufferPointer(start: value, count: length), as: UTF8.self))
                }
            }
        }
        let affected = Int(String(cString: PQcmdTuples(result))) ?? 0
        return PostgresRows(storage: ResultStorage(columns: columns, cells: cells), affectedRows: affected)
    }

    private static func message(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "" }
        return String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
