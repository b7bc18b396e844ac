"""Resolve one attack through a running bridge:  python example_client.py URL TOKEN

Start the bridge so that it accepts programs (browsers send an Origin, programs
don't):  fracas serve --allow-no-origin. A bridge that refuses the connection says
why (a 403 without --allow-no-origin), and this client prints it.
"""

import asyncio
import json
import sys
import uuid

from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus  # the bridge refused: its reply says why

ATTACK = {"attacker": {"strength": 6}, "targets": {"goblin": {"ac": 14}},
          "strikes": [{"target": "goblin", "method": "melee", "style": "slashing",
                       "dice": 3, "weight": 1, "damage_type": "edged"}]}


async def main(url, token):
    async with connect(url) as bridge:
        async def call(method, params, request_id=None):
            # The id is the idempotency key: resend the same id after a lost reply.
            request_id = request_id or str(uuid.uuid4())
            await bridge.send(json.dumps({"jsonrpc": "2.0", "id": request_id,
                                          "method": method, "params": params}))
            reply = json.loads(await bridge.recv())
            if "error" in reply:
                sys.exit(f"{method}: {reply['error']['message']}")
            return reply["result"]

        await call("auth", {"token": token})
        result = await call("attack.resolve", ATTACK)
        faces = [die["face"] for die in result["strikes"][0]["dice"]]
        print(f"dice {faces}: {result['total_damage']} damage (seed {result['seed']})")


try:
    asyncio.run(main(sys.argv[1], sys.argv[2]))
except InvalidStatus as refused:  # e.g. 403 "missing Origin header: ... --allow-no-origin"
    sys.exit(f"the bridge refused the connection: {refused.response.body.decode().strip()}")
