import CCurl

/// Owns the one libcurl multi handle of an `HTTPClient`.
///
/// `@unchecked Sendable` is safe because only the client's worker thread drives the handle
/// (`add`, `remove`, `perform`, `poll`, `info_read`); other threads only call `wakeup`, which
/// libcurl documents as callable from any thread. The handle is freed in `deinit`, when no
/// thread can reach it any more.
final class MultiHandle: @unchecked Sendable {
    /// The C handle (`CURLM *`); used by the worker thread only.
    let raw: UnsafeMutableRawPointer

    /// Creates the multi handle with its connection limits; throws when libcurl cannot.
    init(maxConnectionsPerHost: Int) throws(HTTPClientError) {
        let global = CurlGlobal.initialized
        guard global == CURLE_OK else { throw .setup("curl_global_init", global) }
        guard let raw = curl_multi_init() else {
            throw .transport(Int(CURLM_OUT_OF_MEMORY.rawValue), "curl_multi_init failed")
        }
        self.raw = raw
        let perHost = max(1, maxConnectionsPerHost)
        try Self.check("CURLMOPT_MAX_HOST_CONNECTIONS", ccurl_multi_setopt_long(raw, CURLMOPT_MAX_HOST_CONNECTIONS, perHost))
        // The default cache size follows the number of live easy handles, which is 1 for sequential use;
        // a fixed size keeps idle keep-alive connections to a few hosts.
        try Self.check("CURLMOPT_MAXCONNECTS", ccurl_multi_setopt_long(raw, CURLMOPT_MAXCONNECTS, max(64, perHost * 4)))
    }

    deinit {
        curl_multi_cleanup(raw)
    }

    /// Interrupts a `curl_multi_poll` in progress (or the next one); safe from any thread.
    func wakeup() -> CURLMcode {
        curl_multi_wakeup(raw)
    }

    /// Throws when a multi-interface call did not return `CURLM_OK`.
    static func check(_ function: String, _ result: CURLMcode) throws(HTTPClientError) {
        guard result == CURLM_OK else { throw .setup(function, result) }
    }
}

/// Runs `curl_global_init` exactly once per process (a `static let` is initialized once, thread-safely).
enum CurlGlobal {
    /// The result of the one `curl_global_init` call.
    static let initialized: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
}
