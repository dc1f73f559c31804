import nats


async def test_nats(nats_url: str) -> None:
    async with await nats.connect(nats_url) as nc:  # closed when the assertion fails too
        info = await nc.jetstream().account_info()
        assert info is not None
