#!/usr/bin/env python3
# The streaming benchmark's peer (marketalertd-bench --peer): a minimal Binance bookTicker client, websockets +
# orjson. Subscribes <symbol>@bookTicker, parses each frame, keeps each market's best bid/ask and computes its
# premium over a reference price. Args: URL SYMBOL=PRICE...; on SIGTERM prints "frames N markets M top T".
import asyncio, os, signal, sys, orjson, websockets

async def main(url, reference):
    books, state = {}, {"frames": 0, "top": 0.0}
    def report():
        print(f"frames {state['frames']} markets {len(books)} top {state['top']:.4f}", flush=True)
        os._exit(0)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})  # a spawning parent may have blocked it
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, report)
    async with websockets.connect(url, compression=None, max_size=None, ping_interval=None) as ws:
        await ws.send(orjson.dumps({"method": "SUBSCRIBE", "params": [s.lower() + "@bookTicker" for s in reference], "id": 1}).decode())
        async for message in ws:
            m = orjson.loads(message)
            if "u" not in m: continue  # the subscription's ack
            bid, ask = float(m["b"]), float(m["a"])
            books[m["s"]] = (bid, ask)
            state["top"] = max(state["top"], abs(((bid + ask) / 2 / reference[m["s"]] - 1) * 100))
            state["frames"] += 1

asyncio.run(main(sys.argv[1], {k: float(v) for k, v in (a.split("=") for a in sys.argv[2:])}))
