// Strongroom — SPDX-License-Identifier: Apache-2.0
#include "CRE2.h"

#include <new>
#include <string>

#include <re2/re2.h>

struct strongroom_re2 {
    re2::RE2 program;
    strongroom_re2(const re2::StringPiece &pattern, const re2::RE2::Options &options) : program(pattern, options) {}
};

static re2::RE2::Options options(int64_t max_memory) {
    re2::RE2::Options options;
    options.set_encoding(re2::RE2::Options::EncodingUTF8);
    options.set_log_errors(false);
    options.set_dot_nl(true);
    options.set_never_capture(true);
    options.set_max_mem(max_memory);
    return options;
}

static strongroom_re2 *build(const std::string &pattern, int64_t max_memory) {
    strongroom_re2 *compiled = new (std::nothrow) strongroom_re2(re2::StringPiece(pattern), options(max_memory));
    if (compiled == nullptr) return nullptr;
    if (!compiled->program.ok()) {
        delete compiled;
        return nullptr;
    }
    return compiled;
}

strongroom_re2 *strongroom_re2_compile(const char *pattern, size_t length, int64_t max_memory) {
    try {
        return build(std::string(pattern, length), max_memory);
    } catch (...) {
        return nullptr;
    }
}

strongroom_re2 *strongroom_re2_compile_glob(const char *glob, size_t length, int64_t max_memory) {
    try {
        std::string pattern;
        std::string literal;
        auto flush = [&] {
            pattern += re2::RE2::QuoteMeta(literal);
            literal.clear();
        };
        for (size_t index = 0; index < length; index++) {
            char byte = glob[index];
            if (byte == '*') {
                flush();
                pattern += ".*";
            } else if (byte == '?') {
                flush();
                pattern += ".";
            } else {
                literal += byte;
            }
        }
        flush();
        return build(pattern, max_memory);
    } catch (...) {
        return nullptr;
    }
}

int strongroom_re2_full_match(const strongroom_re2 *program, const char *text, size_t length) {
    return re2::RE2::FullMatch(re2::StringPiece(text, length), program->program) ? 1 : 0;
}

int strongroom_re2_partial_match(const strongroom_re2 *program, const char *text, size_t length) {
    return re2::RE2::PartialMatch(re2::StringPiece(text, length), program->program) ? 1 : 0;
}

void strongroom_re2_free(strongroom_re2 *program) { delete program; }
