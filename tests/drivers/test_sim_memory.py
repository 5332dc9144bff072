"""Simulators run for days: what they remember stays bounded."""

from __future__ import annotations

from tabled_drivers import betspots, meter, shuffler
from tabled_drivers.link import messages as m
from tabled_drivers.sim.betspots import BetSpotsSim
from tabled_drivers.sim.meter import MeterSim
from tabled_drivers.sim.shuffler import ShufflerSim


async def test_commands_seen_keeps_only_the_most_recent_while_counts_cover_all():
    sim = BetSpotsSim()
    n = 3 * sim.COMMANDS_KEPT + 7
    for _ in range(n):
        status, _ = await sim.handle(betspots.POLL.code, b"")
        assert status == m.Status.OK
    await sim.handle(betspots.LOCK.code, b"")
    assert len(sim.commands_seen) == sim.COMMANDS_KEPT
    assert sim.commands_seen[-1] == "lock" and sim.commands_seen[0] == "poll"
    assert sim.command_counts == {"poll": n, "lock": 1}


async def test_every_serial_simulator_bounds_its_command_memory():
    for sim, command in ((ShufflerSim(), shuffler.STATUS), (MeterSim(), meter.SELF_TEST),
                         (BetSpotsSim(), betspots.POLL)):
        for _ in range(sim.COMMANDS_KEPT + 50):
            await sim.handle(command.code, b"")
        assert list(sim.commands_seen) == [command.name] * sim.COMMANDS_KEPT
        assert sim.command_counts[command.name] == sim.COMMANDS_KEPT + 50


async def test_unknown_and_malformed_commands_are_not_remembered_as_executed():
    sim = BetSpotsSim()
    status, _ = await sim.handle(0x3F, b"")  # not in the board's table
    assert status == m.Status.UNKNOWN_COMMAND
    status, _ = await sim.handle(betspots.SET_LAMPS.code, b"\x09")  # a count byte and no lamps
    assert status == m.Status.BAD_REQUEST
    assert list(sim.commands_seen) == [] and not sim.command_counts


async def test_usb_simulators_bound_their_command_memory_too():
    from tabled_drivers import shoe
    from tabled_drivers.sim.shoe import ShoeSimulator

    sim = ShoeSimulator()
    for _ in range(sim.COMMANDS_KEPT + 50):
        status, _ = await sim.handle(shoe.STATUS.code, b"")
        assert status == m.Status.OK
    assert list(sim.commands_seen) == ["status"] * sim.COMMANDS_KEPT
    assert sim.command_counts == {"status": sim.COMMANDS_KEPT + 50}


async def test_usb_simulators_remember_refused_commands_but_not_unknown_or_malformed_ones():
    from tabled_drivers import panel
    from tabled_drivers.sim.panel import PanelSimulator

    sim = PanelSimulator()
    assert (await sim.handle(0x3F, b""))[0] == m.Status.UNKNOWN_COMMAND
    assert (await sim.handle(panel.SET_LAMP.code, b"\x01"))[0] == m.Status.BAD_REQUEST  # no state byte
    status, reason = await sim.handle(panel.SET_LAMP.code, bytes([0x7F, 1]))  # no lamp 0x7f
    assert status == m.Status.BAD_REQUEST and b"127" in reason
    assert list(sim.commands_seen) == ["set_lamp"] and sim.command_counts == {"set_lamp": 1}
