"""The official Python SDK's OAuth client against the protected mcpwire server of
`tests/auth_server.rs`: discovers the metadata from the 401, registers, runs the
authorization code flow with PKCE against the test authorization server (whose authorize
endpoint approves at once: the redirect is read without following it), then calls the
`whoami` tool and prints its text. Usage: python_oauth_client.py <mcp url>."""

import sys
from urllib.parse import parse_qs, urlparse

import anyio
import httpx2
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

REDIRECT = "http://localhost:3000/callback"


class Memory(TokenStorage):
    def __init__(self):
        self.tokens = None
        self.client = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


async def main(url: str) -> None:
    redirect: dict[str, str] = {}

    async def open_authorization(authorization_url: str) -> None:
        async with httpx2.AsyncClient(follow_redirects=False, timeout=10) as http:
            response = await http.get(authorization_url)
        query = parse_qs(urlparse(response.headers["location"]).query)
        redirect.update({k: v[0] for k, v in query.items()})

    async def receive_redirect() -> AuthorizationCodeResult:
        return AuthorizationCodeResult(code=redirect["code"], state=redirect.get("state"), iss=redirect.get("iss"))

    auth = OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name="python-interop", redirect_uris=[REDIRECT], grant_types=["authorization_code"]
        ),
        storage=Memory(),
        redirect_handler=open_authorization,
        callback_handler=receive_redirect,
    )
    with anyio.fail_after(30):
        async with httpx2.AsyncClient(auth=auth, timeout=10) as http:
            async with streamable_http_client(url, http_client=http) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    result = await session.call_tool("whoami", {})
                    print(result.content[0].text, flush=True)


if __name__ == "__main__":
    anyio.run(main, sys.argv[1])
