"""An open-loop HTTP load generator: requests start on a fixed schedule (rate per second), whether or not earlier
ones have been answered, and each latency is counted from the moment its request was due, not from when it was
sent. A closed loop (wrk: each connection waits for its answer before sending the next) slows down with the
server and hides the queue a fixed arrival rate builds ("coordinated omission"); this does not.

A new connection per request, as gunicorn's sync workers close each connection after answering. Standard library
only (asyncio), so its own CPU use is printed beside the figures: it shares the machine with the server.
"""

import asyncio
import statistics
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit


@dataclass
class Result:
    rate: int
    seconds: float
    latencies_ms: list = field(default_factory=list)  # from due time to the whole answer read
    statuses: dict = field(default_factory=dict)
    failures: int = 0  # connection errors and timeouts
    late_starts: int = 0  # requests the generator itself started more than 1 ms after they were due
    client_cpu_s: float = 0.0

    def percentile(self, p):
        ordered = sorted(self.latencies_ms)
        if not ordered:
            return float("nan")
        return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))]

    def summary(self):
        sent = len(self.latencies_ms) + self.failures
        answered = sum(self.statuses.values())
        return (f"{self.rate}/s for {self.seconds:.0f} s: {sent:,} requests, {answered:,} answered "
                f"(statuses {dict(sorted(self.statuses.items()))}, {self.failures} failed); latency p50 "
                f"{self.percentile(50):.1f} ms, p90 {self.percentile(90):.1f} ms, p99 {self.percentile(99):.1f} ms, "
                f"max {max(self.latencies_ms, default=float('nan')):.1f} ms, mean "
                f"{statistics.fmean(self.latencies_ms) if self.latencies_ms else float('nan'):.1f} ms; "
                f"generator: {self.late_starts} late starts, {self.client_cpu_s:.1f} s CPU")


def _request_bytes(url, body, headers):
    parts = urlsplit(url)
    lines = [f"POST {parts.path or '/'} HTTP/1.1", f"Host: {parts.netloc}", f"Content-Length: {len(body)}",
             "Connection: close"] + [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body, parts.hostname, parts.port or 80


async def _one(host, port, payload, due, result, timeout):
    loop = asyncio.get_running_loop()
    if loop.time() - due > 0.001:
        result.late_starts += 1
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(payload)
            status_line = await reader.readline()
            await reader.read()  # Connection: close, so the answer ends where the stream does
            writer.close()
        status = int(status_line.split()[1])
        result.statuses[status] = result.statuses.get(status, 0) + 1
        result.latencies_ms.append((loop.time() - due) * 1000)
    except (OSError, TimeoutError, IndexError, ValueError):
        result.failures += 1


async def _run(url, body, headers, rate, seconds, timeout):
    payload, host, port = _request_bytes(url, body, headers)
    result = Result(rate=rate, seconds=seconds)
    loop = asyncio.get_running_loop()
    start = loop.time() + 0.05
    tasks = []
    for n in range(int(rate * seconds)):
        due = start + n / rate
        delay = due - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(_one(host, port, payload, due, result, timeout)))
    await asyncio.gather(*tasks)
    return result


def run(url, body, headers, *, rate, seconds, timeout=10.0):
    """POST ``body`` to ``url`` at ``rate`` requests a second for ``seconds``; returns a Result."""
    cpu = time.process_time()
    result = asyncio.run(_run(url, body, headers, rate, seconds, timeout))
    result.client_cpu_s = time.process_time() - cpu
    return result
