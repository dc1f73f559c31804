import nats


async def test_nats(nats_url: str) -> None:
    nc = await nats.connect(nats_url)
    js = nc.jetstream()
    info = await js.account_info()
    assert info is not None
    await nc.close()
