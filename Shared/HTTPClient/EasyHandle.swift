import CCurl

/// One libcurl easy handle and its error buffer, kept in the worker's pool and reused across requests.
///
/// Not `Sendable`: it is created, used and freed on the worker thread only.
final class EasyHandle {
    /// The C handle (`CURL *`).
    let raw: UnsafeMutableRawPointer
    /// libcurl writes the reason of a failure here (`CURLOPT_ERRORBUFFER`).
    private let errorBuffer: UnsafeMutablePointer<CChar>

    /// Creates an easy handle; throws when libcurl cannot.
    init() throws(HTTPClientError) {
        guard let raw = curl_easy_init() else {
            throw .transport(Int(CURLE_OUT_OF_MEMORY.rawValue), "curl_easy_init failed")
        }
        self.raw = raw
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        curl_easy_cleanup(raw)
        errorBuffer.deallocate()
    }

    /// Clears every option from the previous request (keeping live connections) and re-attaches the error buffer.
    func reset() throws(HTTPClientError) {
        curl_easy_reset(raw)
        errorBuffer[0] = 0
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
    }

    /// libcurl's message for the last failure, or nil when it wrote none.
    var errorMessage: String? {
        errorBuffer[0] == 0 ? nil : String(cString: errorBuffer)
    }

    /// Sets a `long` option.
    func set(_ option: CURLoption, _ value: Int) throws(HTTPClientError) {
        try check(option, ccurl_easy_setopt_long(raw, option, value))
    }

    /// Sets a string option (libcurl copies it).
    func set(_ option: CURLoption, _ value: String) throws(HTTPClientError) {
        try check(option, ccurl_easy_setopt_string(raw, option, value))
    }

    /// Sets a pointer option.
    func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) throws(HTTPClientError) {
        try check(option, ccurl_easy_setopt_pointer(raw, option, pointer))
    }

    /// Sets a header list option; the list must outlive the transfer.
    func set(_ option: CURLoption, list: UnsafeMutablePointer<curl_slist>?) throws(HTTPClientError) {
        try check(option, ccurl_easy_setopt_slist(raw, option, list))
    }

    /// Sets a write or header callback.
    func set(_ option: CURLoption, callback: curl_write_callback) throws(HTTPClientError) {
        try check(option, ccurl_easy_setopt_write_function(raw, option, callback))
    }

    /// Sets the callback that opens each connection's socket (`CURLOPT_OPENSOCKETFUNCTION`).
    func set(_ option: CURLoption, openSocket: curl_opensocket_callback) throws(HTTPClientError) {
        try check(option, ccurl_easy_setopt_opensocket_function(raw, option, openSocket))
    }

    /// Sets the request body: libcurl copies `bytes` before returning.
    func setBody(_ bytes: [UInt8]) throws(HTTPClientError) {
        try check(CURLOPT_POSTFIELDSIZE_LARGE, ccurl_easy_setopt_off_t(raw, CURLOPT_POSTFIELDSIZE_LARGE, bytes.count))
        // An empty array may have no storage, and libcurl needs a valid pointer even for zero bytes.
        let result = bytes.isEmpty
            ? ccurl_easy_setopt_string(raw, CURLOPT_COPYPOSTFIELDS, "")
            : bytes.withUnsafeBytes { buffer in
                ccurl_easy_setopt_string(raw, CURLOPT_COPYPOSTFIELDS, buffer.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
        try check(CURLOPT_COPYPOSTFIELDS, result)
    }

    /// The status code of the last response received.
    func responseCode() throws(HTTPClientError) -> Int {
        var code = 0
        let result = ccurl_easy_getinfo_long(raw, CURLINFO_RESPONSE_CODE, &code)
        guard result == CURLE_OK else { throw .setup("CURLINFO_RESPONSE_CODE", result) }
        return code
    }

    private func check(_ option: CURLoption, _ result: CURLcode) throws(HTTPClientError) {
        guard result == CURLE_OK else { throw .setup("curl_easy_setopt(\(option.rawValue))", result) }
    }
}
