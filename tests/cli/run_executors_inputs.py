"""The executors suite's inputs, generated independently of the C++ code: splitmix64 with the
suite's seeds and Lemire's multiply-shift, fingerprinted as executors.cpp says. Prints one line per
workload: name, first 16 hex digits of the SHA-256, len_min, len_max, len_mean."""
import hashlib, struct
M = (1 << 64) - 1
class SM:
    def __init__(s, seed): s.s = seed
    def next(s):
        s.s = (s.s + 0x9e3779b97f4a7c15) & M
        z = s.s
        z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M
        z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M
        return z ^ (z >> 31)
    def between(s, lo, hi):
        span = hi - lo + 1
        return lo + ((((s.next() >> 32) * span) >> 32))
def fp(vectors):
    b = struct.pack('<i', len(vectors))
    for v in vectors:
        b += struct.pack('<i', len(v)) + struct.pack('<%di' % len(v), *v)
    return hashlib.sha256(b).hexdigest()[:16]


def main():
    r = SM(20251122)
    uniform = [r.between(0, 1000000000) for _ in range(2000)]
    print("uniform", fp([uniform]), 2000, 2000, repr(2000.0))
    r = SM(20251123)
    vectors = []
    for _ in range(1000):
        n = r.between(500, 2000)
        vectors.append([r.between(1, 100) for _ in range(n)])
    lengths = [len(v) for v in vectors]
    print("mixed", fp(vectors), min(lengths), max(lengths), repr(sum(lengths) / 1000))


main()
