// The streaming benchmark's floor (marketalertd-bench --peer … --floor): the least a client can spend per frame
// on this host. Arguments and report as scripts/bench-peer.py's: URL SYMBOL=PRICE...; on SIGTERM it prints
// "frames N markets M top T".
//
// One thread, one blocking read() per wakeup, no event loop, no allocation after start: it parses each
// WebSocket frame's header, finds "s", "b" and "a" in the bookTicker JSON by scanning, keeps each market's
// best bid/ask and the top premium over its reference price. What it costs per frame is what the host
// charges for a wakeup and a socket read, plus a few hundred nanoseconds: no client of this stream can
// cost less. Built by scripts/bench with `cc -O2`.
#include <arpa/inet.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_MARKETS 512
static char symbols[MAX_MARKETS][32];
static double references[MAX_MARKETS];
static int known[MAX_MARKETS];
static int market_count;
static volatile long frames;
static volatile double top;

static void report(int signal) {
    (void)signal;
    int markets = 0;
    for (int i = 0; i < market_count; i++) markets += known[i];
    char line[128];
    int n = snprintf(line, sizeof line, "frames %ld markets %d top %.4f\n", frames, markets, top);
    if (write(1, line, (size_t)n) < 0) _exit(1);
    _exit(0);
}

static int write_all(int fd, const unsigned char *bytes, size_t count) {
    while (count > 0) {
        ssize_t n = write(fd, bytes, count);
        if (n <= 0) return -1;
        bytes += n;
        count -= (size_t)n;
    }
    return 0;
}

// A masked client frame (mask 0: the XOR leaves the payload as it is, which servers accept).
static int send_frame(int fd, int opcode, const char *payload, size_t length) {
    unsigned char header[14];
    size_t at = 0;
    header[at++] = (unsigned char)(0x80 | opcode);
    if (length < 126) {
        header[at++] = (unsigned char)(0x80 | length);
    } else {
        header[at++] = 0x80 | 126;
        header[at++] = (unsigned char)(length >> 8);
        header[at++] = (unsigned char)length;
    }
    memset(header + at, 0, 4);
    at += 4;
    if (write_all(fd, header, at) < 0) return -1;
    return write_all(fd, (const unsigned char *)payload, length);
}

// The text after `"key":"` in [start, end), or NULL.
static const char *field(const char *start, const char *end, const char *key) {
    size_t length = strlen(key);
    for (const char *p = start; p + length + 3 < end; p++) {
        if (*p == '"' && memcmp(p + 1, key, length) == 0 && p + length + 3 < end && p[length + 1] == '"' && p[length + 2] == ':')
            return p[length + 3] == '"' ? p + length + 4 : p + length + 3;
    }
    return NULL;
}

static void take(const char *text, size_t length) {
    const char *end = text + length;
    if (!field(text, end, "u")) return;  // the subscription's ack
    const char *symbol = field(text, end, "s"), *bid = field(text, end, "b"), *ask = field(text, end, "a");
    if (!symbol || !bid || !ask) return;
    const char *close = memchr(symbol, '"', (size_t)(end - symbol));
    if (!close) return;
    double b = strtod(bid, NULL), a = strtod(ask, NULL);
    for (int i = 0; i < market_count; i++) {
        if ((size_t)(close - symbol) == strlen(symbols[i]) && memcmp(symbols[i], symbol, (size_t)(close - symbol)) == 0) {
            known[i] = 1;
            double premium = fabs(((b + a) / 2 / references[i] - 1) * 100);
            if (premium > top) top = premium;
            frames++;
            return;
        }
    }
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    signal(SIGTERM, report);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_UNBLOCK, &set, NULL);  // a spawning parent may have blocked it
    const char *url = argv[1];
    int port = 0;
    char path[256] = "/";
    if (sscanf(url, "ws://127.0.0.1:%d%255s", &port, path) < 1) return 2;
    for (int i = 2; i < argc && market_count < MAX_MARKETS; i++) {
        char *equals = strchr(argv[i], '=');
        if (!equals || equals - argv[i] >= 32) continue;
        memcpy(symbols[market_count], argv[i], (size_t)(equals - argv[i]));
        references[market_count++] = strtod(equals + 1, NULL);
    }
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) < 0) return 3;
    char request[512];
    int n = snprintf(request, sizeof request,
                     "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", path, port);
    if (write_all(fd, (const unsigned char *)request, (size_t)n) < 0) return 3;

    static unsigned char buffer[1 << 20];
    size_t held = 0;
    for (;;) {  // the handshake's answer
        ssize_t got = read(fd, buffer + held, sizeof buffer - held - 1);
        if (got <= 0) return 4;
        held += (size_t)got;
        buffer[held] = 0;
        char *blank = strstr((char *)buffer, "\r\n\r\n");
        if (blank) {
            if (strncmp((char *)buffer, "HTTP/1.1 101", 12) != 0) return 4;
            size_t header = (size_t)(blank + 4 - (char *)buffer);
            memmove(buffer, buffer + header, held - header);
            held -= header;
            break;
        }
    }
    static char subscribe[1 << 16];
    size_t length = (size_t)snprintf(subscribe, sizeof subscribe, "{\"method\":\"SUBSCRIBE\",\"params\":[");
    for (int i = 0; i < market_count && length < sizeof subscribe - 64; i++) {
        length += (size_t)snprintf(subscribe + length, sizeof subscribe - length, "%s\"", i ? ",\"" : "\"");
        for (const char *s = symbols[i]; *s; s++) subscribe[length++] = (char)(*s >= 'A' && *s <= 'Z' ? *s + 32 : *s);
        length += (size_t)snprintf(subscribe + length, sizeof subscribe - length, "@bookTicker\"");
    }
    length += (size_t)snprintf(subscribe + length, sizeof subscribe - length, "],\"id\":1}");
    if (send_frame(fd, 1, subscribe, length) < 0) return 3;

    for (;;) {
        size_t at = 0;
        while (held - at >= 2) {  // every whole frame held
            int opcode = buffer[at] & 0x0f;
            size_t payload = buffer[at + 1] & 0x7f, header = 2;
            if (payload == 126) {
                if (held - at < 4) break;
                payload = (size_t)buffer[at + 2] << 8 | buffer[at + 3];
                header = 4;
            } else if (payload == 127) {
                if (held - at < 10) break;
                payload = 0;
                for (int i = 0; i < 8; i++) payload = payload << 8 | buffer[at + 2 + i];
                header = 10;
            }
            if (payload > sizeof buffer - 16) return 5;
            if (held - at < header + payload) break;
            const char *body = (const char *)buffer + at + header;
            if (opcode == 1) take(body, payload);
            else if (opcode == 9 && send_frame(fd, 10, body, payload) < 0) return 3;
            else if (opcode == 8) return 0;
            at += header + payload;
        }
        memmove(buffer, buffer + at, held - at);
        held -= at;
        ssize_t got = read(fd, buffer + held, sizeof buffer - held);
        if (got <= 0) return 0;
        held += (size_t)got;
    }
}
