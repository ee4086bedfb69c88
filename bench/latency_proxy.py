"""A loopback TCP proxy that adds a fixed latency to every HTTP request and
counts them (bench/s3_run.sh puts it in front of the local S3 server).

Usage: latency_proxy.py LISTEN_PORT UPSTREAM_PORT DELAY_MS COUNT_FILE

Each client connection gets its own upstream connection. The first bytes
a client sends after the previous response began (or on a new connection)
start a request: it is counted, and held DELAY_MS before it goes upstream.
Connections are independent, so N requests in flight on N connections wait
DELAY_MS together, as they would on a network with that round trip.
COUNT_FILE holds the number of requests so far (rewritten at each one)."""
import asyncio
import sys

listen, upstream, delay_ms, count_file = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
delay = delay_ms / 1000.0
count = 0


def counted():
    global count
    count += 1
    with open(count_file, "w") as f:
        f.write(f"{count}\n")


async def pipe_up(reader, writer, state):
    while data := await reader.read(65536):
        if state["new_request"]:
            state["new_request"] = False
            counted()
            await asyncio.sleep(delay)
        writer.write(data)
        await writer.drain()
    writer.close()


async def pipe_down(reader, writer, state):
    while data := await reader.read(65536):
        state["new_request"] = True
        writer.write(data)
        await writer.drain()
    writer.close()


async def handle(client_reader, client_writer):
    try:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", upstream)
    except OSError:
        client_writer.close()
        return
    state = {"new_request": True}
    await asyncio.gather(pipe_up(client_reader, up_writer, state), pipe_down(up_reader, client_writer, state),
                         return_exceptions=True)


async def main():
    counted_zero = open(count_file, "w")
    counted_zero.write("0\n")
    counted_zero.close()
    server = await asyncio.start_server(handle, "127.0.0.1", listen, backlog=1024)
    async with server:
        await server.serve_forever()


asyncio.run(main())
