import CCurl

extension HTTPClientError {
    /// Maps a failed transfer's `CURLcode` to an error; `detail` is libcurl's error buffer, if it wrote one.
    init(curl result: CURLcode, detail: String?) {
        let code = Int(result.rawValue)
        let message = detail ?? String(cString: curl_easy_strerror(result))
        let kind: HTTPClientError = switch result {
        case CURLE_OPERATION_TIMEDOUT: .timeout
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY,
             CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            .connectionFailed
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL: .invalidURL
        case CURLE_FILESIZE_EXCEEDED: .responseTooLarge
        default: .transport(code, message)
        }
        self = kind.with(curlCode: code, detail: message)
    }

    /// An error for a libcurl call that failed while setting up a transfer (setopt, add handle).
    static func setup(_ function: String, _ result: CURLcode) -> HTTPClientError {
        .transport(Int(result.rawValue), "\(function): \(String(cString: curl_easy_strerror(result)))")
    }

    /// An error for a multi-interface call that failed.
    static func setup(_ function: String, _ result: CURLMcode) -> HTTPClientError {
        .transport(Int(result.rawValue), "\(function): \(String(cString: curl_multi_strerror(result)))")
    }
}
