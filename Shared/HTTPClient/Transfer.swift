import CCurl
import IPAddresses

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One request in flight on the worker thread: its easy handle, its header list and the response being collected.
///
/// Not `Sendable`: created, filled by libcurl's callbacks and completed on the worker thread only.
final class Transfer {
    /// The caller's side of the request.
    let pending: PendingRequest
    /// The pooled easy handle doing the transfer.
    let easy: EasyHandle
    /// The client's limits, user agent and destination policy.
    private let configuration: HTTPClient.Configuration
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var body: [UInt8] = []
    private var headers: [String: String] = [:]
    private var receivedBytes = 0
    /// Set when the response passed `Configuration.maxResponseSize` and the transfer was aborted for it.
    private var isTooLarge = false
    /// Set when the body passed the request's `maxResponseBodyBytes` and the transfer was stopped with the response kept.
    private var isTruncated = false
    /// The addresses the destination policy refused to connect to, each with why ("127.0.0.1 is loopback").
    private var refusals: [String] = []

    init(pending: PendingRequest, easy: EasyHandle, configuration: HTTPClient.Configuration) {
        self.pending = pending
        self.easy = easy
        self.configuration = configuration
    }

    deinit {
        curl_slist_free_all(headerList)
    }

    /// Sets every option of the request on the easy handle, after clearing the previous request's.
    func configure() throws(HTTPClientError) {
        let request = pending.request
        try easy.reset()
        try easy.set(CURLOPT_URL, request.url)
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        try easy.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        try easy.set(CURLOPT_NOSIGNAL, 1)
        let milliseconds = Self.milliseconds(request.timeout)
        try easy.set(CURLOPT_TIMEOUT_MS, milliseconds)
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, milliseconds)
        try easy.set(CURLOPT_USERAGENT, configuration.userAgent)
        if request.maxResponseBodyBytes == nil {
            // Fails early (CURLE_FILESIZE_EXCEEDED) when Content-Length already announces too much; a body that
            // will be cut must be read up to its cut instead.
            try easy.set(CURLOPT_MAXFILESIZE, configuration.maxResponseSize)
        }

        let context = Unmanaged.passUnretained(self).toOpaque()
        try easy.set(CURLOPT_PRIVATE, pointer: context)
        try easy.set(CURLOPT_WRITEDATA, pointer: context)
        try easy.set(CURLOPT_HEADERDATA, pointer: context)
        try easy.set(CURLOPT_WRITEFUNCTION, callback: { data, size, count, context in
            Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue().receiveBody(data, size * count)
        })
        try easy.set(CURLOPT_HEADERFUNCTION, callback: { data, size, count, context in
            Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue().receiveHeader(data, size * count)
        })
        if configuration.destinations == .publicOnly {
            // "" turns proxies off, the environment's too: through one, the address checked would be the proxy's.
            try easy.set(CURLOPT_PROXY, "")
            try easy.set(CURLOPT_OPENSOCKETDATA, pointer: context)
            try easy.set(CURLOPT_OPENSOCKETFUNCTION, openSocket: { context, _, address in
                guard let context, let address else { return CURL_SOCKET_BAD }
                return Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue().openSocket(address)
            })
        }

        switch request.method {
        case "GET" where request.body == nil:
            break
        case "HEAD":
            try easy.set(CURLOPT_NOBODY, 1)
        case let method:
            if request.body != nil || method == "POST" {
                try easy.setBody(request.body ?? [])
            }
            if method != "POST" {
                try easy.set(CURLOPT_CUSTOMREQUEST, method)
            }
        }

        for (name, value) in request.headers {
            // "Name;" is libcurl's spelling for a header sent with an empty value ("Name:" would remove it).
            try append(value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        if request.body != nil || request.method == "POST" {
            // Without this libcurl waits for "100 Continue" before sending large bodies.
            try append("Expect:")
            // libcurl would otherwise label every body application/x-www-form-urlencoded.
            if !request.headers.contains(where: { $0.0.lowercased() == "content-type" }) {
                try append("Content-Type:")
            }
        }
        if headerList != nil {
            try easy.set(CURLOPT_HTTPHEADER, list: headerList)
        }
    }

    /// What the caller gets for a transfer that ended with `result`: the response, or why there is none.
    func outcome(of result: CURLcode) -> Result<HTTPClientResponse, HTTPClientError> {
        // A truncated body ends the transfer with a write error, which is the stop asked for, not a failure.
        if result == CURLE_OK || (isTruncated && result == CURLE_WRITE_ERROR) {
            return Result { () throws(HTTPClientError) in
                HTTPClientResponse(status: try easy.responseCode(), headers: headers, body: body, isTruncated: isTruncated)
            }
        }
        if isTooLarge {
            return .failure(.responseTooLarge)
        }
        if result == CURLE_COULDNT_CONNECT, !refusals.isEmpty {
            return .failure(HTTPClientError.destinationRefused.with(detail: refusals.joined(separator: ", ")))
        }
        return .failure(HTTPClientError(curl: result, detail: easy.errorMessage))
    }

    private func append(_ line: String) throws(HTTPClientError) {
        guard let list = curl_slist_append(headerList, line) else {
            throw .transport(Int(CURLE_OUT_OF_MEMORY.rawValue), "curl_slist_append failed")
        }
        headerList = list
    }

    /// Counts `count` more bytes received, headers and body alike (a body being cut counts only what it keeps);
    /// false, marking the response too large, once they pass `maxResponseSize`.
    private func admit(_ count: Int) -> Bool {
        receivedBytes += count
        guard receivedBytes <= configuration.maxResponseSize else {
            isTooLarge = true
            return false
        }
        return true
    }

    /// CURLOPT_OPENSOCKETFUNCTION, under `.publicOnly`: opens the socket for `address` (as libcurl itself would)
    /// when it is a public address, else records why not and returns `CURL_SOCKET_BAD`, which fails this attempt.
    private func openSocket(_ address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        // `addr` is declared a `sockaddr`, but libcurl stores the whole address there, `addrlen` bytes of it.
        let start = UnsafeRawPointer(address) + MemoryLayout<curl_sockaddr>.offset(of: \.addr)!
        let length = min(Int(address.pointee.addrlen), MemoryLayout<sockaddr_storage>.size)
        let refusal: String
        if let ip = IPAddress(socketAddress: Array(UnsafeRawBufferPointer(start: start, count: length))) {
            guard let use = ip.specialUse else {
                return socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
            }
            refusal = "\(ip) is \(use)"
        } else {
            refusal = "an address of family \(address.pointee.family) is not an IP address"
        }
        // One entry per address: libcurl may try each of a host's addresses, and again on a retry.
        if !refusals.contains(refusal), refusals.count < 8 {
            refusals.append(refusal)
        }
        return CURL_SOCKET_BAD
    }

    /// CURLOPT_WRITEFUNCTION: appends to the body; returning less than `count` aborts the transfer.
    private func receiveBody(_ data: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        guard count > 0, let data else { return 0 }
        guard let limit = pending.request.maxResponseBodyBytes else {
            guard admit(count) else { return 0 }
            body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: count))
            return count
        }
        // Keeps what fits under both limits; past them, stops the transfer with the response kept, cut.
        let room = max(0, min(limit - body.count, configuration.maxResponseSize - receivedBytes))
        let kept = min(count, room)
        receivedBytes += kept
        body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: kept))
        guard kept == count else {
            isTruncated = true
            return 0
        }
        return count
    }

    /// CURLOPT_HEADERFUNCTION: one header line at a time, including the status line and the blank line.
    private func receiveHeader(_ data: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        guard count > 0, let data, admit(count) else { return 0 }
        let line = UnsafeRawBufferPointer(start: data, count: count)
        if count >= 5, line[0] == UInt8(ascii: "H"), line[1] == UInt8(ascii: "T"), line[2] == UInt8(ascii: "T"),
           line[3] == UInt8(ascii: "P"), line[4] == UInt8(ascii: "/") {
            // A new status line (after 1xx or a followed redirect): keep only the last response's headers.
            headers.removeAll(keepingCapacity: true)
            return count
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return count }
        let name = String(unsafeUninitializedCapacity: colon) { buffer in
            for index in 0..<colon {
                let byte = line[index]
                buffer[index] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            }
            return colon
        }
        var start = colon + 1
        var end = count
        while start < end, Self.isWhitespace(line[start]) { start += 1 }
        while end > start, Self.isWhitespace(line[end - 1]) { end -= 1 }
        let value = String(decoding: UnsafeRawBufferPointer(rebasing: line[start..<end]), as: UTF8.self)
        if let existing = headers[name] {
            headers[name] = existing + ", " + value
        } else {
            headers[name] = value
        }
        return count
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n")
    }

    /// The deadline in whole milliseconds, at least 1 (libcurl reads 0 as "no timeout").
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return seconds > 0 ? Int(Int32.max) : 1 }
        return min(max(1, Int(scaled + attoseconds / 1_000_000_000_000_000)), Int(Int32.max))
    }
}
