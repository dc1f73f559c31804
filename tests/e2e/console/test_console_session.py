"""The console when the sign-in runs out: a token that expires while the person works."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from playwright.async_api import Route, expect

from baton_auth import mint_token
from baton_notifier.domain.live import CLOSE_UNAUTHORIZED, TOKEN_EXPIRED_REASON

from .conftest import SECRET, Console, Stack

SESSION_EXPIRED = (
    "Your session has expired. Sign in again to go on: your onboarding is kept, and so is a "
    "message you had not sent yet."
)


def expired_token(user: str) -> str:
    """A token of `user` that expired an hour ago: the gateway answers it as at expiry."""
    an_hour_ago = datetime.now(UTC) - timedelta(hours=1)
    return mint_token(SECRET, user, ttl=timedelta(minutes=5), now=an_hour_ago)


async def end_live_as_at_expiry(console: Console, stack: Stack, user: str) -> None:
    """What the gateway does at the token's expiry: it closes the live socket with 4401, and
    from then on answers the token 401 `expired`; the console asks `/api/me` which it was."""

    async def send_an_expired_token(route: Route) -> None:
        headers = {**route.request.headers, "authorization": f"Bearer {expired_token(user)}"}
        await route.continue_(headers=headers)

    await console.page.route("**/api/me", send_an_expired_token)
    live = stack.dev.notifier.live
    assert live is not None
    for session in live.hub.sessions():
        if session.filter.user_id == user:
            session.end(CLOSE_UNAUTHORIZED, TOKEN_EXPIRED_REASON)


async def expect_told_to_sign_in_again(console: Console, text: str) -> None:
    alert = console.page.get_by_role("alert")
    await expect(alert.locator("#alert-text")).to_have_text(text)
    await expect(alert.locator("#alert-details li")).to_have_count(0)
    await expect(console.page.get_by_label("Your name")).to_be_focused()


async def test_a_token_expiring_while_the_page_is_idle_says_so_in_words_for_a_person(
    console: Console, stack: Stack
) -> None:
    await console.open()
    await console.sign_in("uma")
    await console.start()
    await console.live()
    await console.page.get_by_label("Your message").fill("Work and health matter most")
    await end_live_as_at_expiry(console, stack, "uma")

    await expect_told_to_sign_in_again(console, SESSION_EXPIRED)
    await console.page.unroute("**/api/me")
    await console.sign_in("uma")  # as the notice says: the onboarding and the draft are there
    await console.expect_step("greeting")
    await expect(console.page.get_by_label("Your message")).to_have_value(
        "Work and health matter most"
    )


async def test_a_token_refused_as_expired_when_sending_says_so_in_words_for_a_person(
    console: Console,
) -> None:
    await console.open()
    await console.sign_in("vera")
    await console.start()

    async def send_an_expired_token(route: Route) -> None:
        headers = {**route.request.headers, "authorization": f"Bearer {expired_token('vera')}"}
        await route.continue_(headers=headers)  # the gateway's own 401: "token has expired"

    await console.page.route("**/messages", send_an_expired_token)
    await console.page.get_by_label("Your message").fill("Hello there")
    await console.page.get_by_label("Your message").press("Enter")
    await expect_told_to_sign_in_again(console, SESSION_EXPIRED)

    await console.page.unroute("**/messages")
    await console.sign_in("vera")
    await expect(console.page.get_by_label("Your message")).to_have_value("Hello there")
    assert await console.say("Hello there")  # sent once signed in again


async def test_an_expired_token_kept_pasted_or_in_a_link_is_named_expired(
    console: Console,
) -> None:
    await console.open()
    await console.sign_in("wren")
    # The tab kept a token that has expired since: reloading signs out, saying why.
    await console.page.evaluate(
        "token => sessionStorage.setItem('baton.console.token', token)", expired_token("wren")
    )
    await console.open(console.page.url)
    await expect_told_to_sign_in_again(console, SESSION_EXPIRED)

    await console.page.get_by_label("Bearer token").fill(expired_token("wren"))
    await console.page.get_by_role("button", name="Use this token").click()
    await expect(console.page.locator("#alert-text")).to_have_text(
        "This token has expired: get a new one."
    )

    await console.page.evaluate("token => { location.hash = 'token=' + token }", expired_token("x"))
    await expect(console.page.locator("#alert-text")).to_have_text(
        "The link you opened has expired: ask for a new one. Nothing has changed here."
    )


async def test_an_unsent_message_is_never_shown_to_the_next_user_of_the_tab(
    console: Console, stack: Stack
) -> None:
    await console.open()
    await console.sign_in("xena")
    await console.start()
    box = console.page.get_by_label("Your message")
    await box.fill("my doctor said")
    await console.page.get_by_role("button", name="Sign out").click()
    await console.sign_in("yusuf")  # the next person at this browser
    await console.start()
    await expect(box).to_have_value("")

    await console.live()
    await box.fill("my bank PIN is")
    await end_live_as_at_expiry(console, stack, "yusuf")  # his draft is kept for him
    await expect_told_to_sign_in_again(console, SESSION_EXPIRED)
    await console.page.unroute("**/api/me")
    await console.sign_in("xena")  # and only for him
    await console.expect_step("greeting")
    await expect(box).to_have_value("")


def refusal(reason: str, message: str) -> dict[str, object]:
    details = [{"field": "token", "message": reason}]
    return {"error": {"code": "unauthorized", "message": message, "details": details}}


async def test_expiry_is_told_by_the_401s_reason_not_by_its_words(console: Console) -> None:
    # The console looked for the word "expired" in the gateway's message: words that may
    # change, and a forged token whose message happened to hold it read as expired.
    await console.open()
    await console.sign_in("zoe")
    await console.start()
    box = console.page.get_by_label("Your message")
    answers = iter([
        refusal("bad_signature", "token signature does not verify (it had not expired)"),
        refusal("expired", "token is past its time"),
    ])  # fmt: skip

    async def refuse(route: Route) -> None:
        await route.fulfill(status=401, json=next(answers))

    await console.page.route("**/messages", refuse)
    await box.fill("Hello there")
    await box.press("Enter")
    await expect(console.page.locator("#alert-text")).to_have_text(
        "Your sign-in is no longer valid: token signature does not verify (it had not expired)"
    )
    await expect(console.page.locator("#alert-details li")).to_have_count(0)  # the reason code
    await console.sign_in("zoe")
    await box.fill("Hello there")
    await box.press("Enter")
    await expect_told_to_sign_in_again(console, SESSION_EXPIRED)


async def test_a_pasted_token_that_is_no_jwt_is_told_so_in_the_gateways_words(
    console: Console, stack: Stack
) -> None:
    production = await stack.gateway(dev_sign_in=False)
    await console.open(production.url)
    await console.page.get_by_label("Bearer token").fill("eyJhbGciOiJIUzI1NiJ9")
    await console.page.get_by_role("button", name="Use this token").click()
    await expect(console.page.locator("#alert-text")).to_have_text(
        "This token was refused: token is not a JWT: it should be three parts separated by "
        "dots (header.payload.signature), and it has 1"
    )
    await expect(console.page.get_by_role("alert")).not_to_contain_text("segments")
