"""The naïve way to time-box a blocking call, run as its own process to show when that process exits.

`asyncio.wait_for` gives up on the call after the deadline, but `asyncio.run` then shuts down
the default executor and joins its thread, which is still inside the stuck call.
"""

from __future__ import annotations

import asyncio
import sys
import time

STUCK_S = 10.0
DEADLINE_S = 0.5


async def main() -> None:
    started = time.perf_counter()
    try:
        await asyncio.wait_for(asyncio.to_thread(time.sleep, STUCK_S), DEADLINE_S)
    except TimeoutError:
        print(f"gave up after {time.perf_counter() - started:.3f} s", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
