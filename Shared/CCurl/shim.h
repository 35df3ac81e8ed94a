#ifndef CCurl_SHIM_H
#define CCurl_SHIM_H
#include <curl/curl.h>

// curl_easy_setopt is variadic (Swift cannot call it): one typed wrapper per argument kind.

// Sets a `long` option (flags, timeouts, sizes that fit a long).
static inline CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

// Sets a `curl_off_t` option (the *_LARGE sizes).
static inline CURLcode ccurl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

// Sets a string option (libcurl copies strings it is given, except CURLOPT_POSTFIELDS).
static inline CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

// Sets a pointer option (WRITEDATA, HEADERDATA, OPENSOCKETDATA, PRIVATE, ERRORBUFFER).
static inline CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

// Sets a header list option (CURLOPT_HTTPHEADER).
static inline CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

// Sets CURLOPT_WRITEFUNCTION or CURLOPT_HEADERFUNCTION (same C signature).
static inline CURLcode ccurl_easy_setopt_write_function(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

// Sets CURLOPT_OPENSOCKETFUNCTION: the client checks the address libcurl is about to connect to (after DNS) before opening the socket.
static inline CURLcode ccurl_easy_setopt_opensocket_function(CURL *handle, CURLoption option, curl_opensocket_callback value) {
    return curl_easy_setopt(handle, option, value);
}

// curl_easy_getinfo is variadic: typed wrappers for the kinds read here.

// Reads a `long` info (CURLINFO_RESPONSE_CODE).
static inline CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

// Reads a pointer info (CURLINFO_PRIVATE).
static inline CURLcode ccurl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, (char **)value);
}

// curl_multi_setopt is variadic: a typed wrapper for `long` options.
static inline CURLMcode ccurl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

#endif
