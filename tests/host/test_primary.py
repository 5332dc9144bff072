"""A writer's connection string reaches only the primary of a replicated server."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from psycopg.conninfo import conninfo_to_dict

from tabled.host.primary import StandbyOnly, for_the_primary, hosts_of, standby_only

HOST = st.from_regex(r"[a-z][a-z0-9-]{0,10}(\.[a-z]{2,5})?", fullmatch=True)


@given(hosts=st.lists(HOST, min_size=1, max_size=4), port=st.integers(1, 65535),
       attrs=st.sampled_from([None, "any", "read-write", "primary"]))
def test_every_writer_string_asks_for_a_writable_server_and_keeps_the_rest(hosts, port, attrs):
    dsn = f"host={','.join(hosts)} port={port} dbname=casino user=tabled_t01" + (
        f" target_session_attrs={attrs}" if attrs else "")
    parts = conninfo_to_dict(for_the_primary(dsn))
    assert parts.pop("target_session_attrs") in ("read-write", "primary")
    assert parts == {"host": ",".join(hosts), "port": str(port), "dbname": "casino", "user": "tabled_t01"}
    assert hosts_of(dsn) == [f"{h}:{port}" for h in hosts]


@pytest.mark.parametrize("attrs", ["read-only", "standby", "prefer-standby"])
def test_a_writer_string_asking_for_a_standby_is_refused(attrs):
    with pytest.raises(StandbyOnly, match=f"target_session_attrs={attrs} asks for a server that does not take"):
        for_the_primary(f"postgresql://t@db-a,db-b/casino?target_session_attrs={attrs}")


def test_only_a_refusal_by_standbys_alone_is_called_standby_only():
    dsn = "host=db-a,db-b port=5432,5433"
    read_only = OSError('connection to server at "db-b", port 5433 failed: session is read-only')
    down = OSError('connection to server at "db-a" failed: Connection refused\n'
                   'connection to server at "db-b" failed: session is read-only')
    assert standby_only(read_only, dsn) == (
        "every server the connection string names (db-a:5432, db-b:5433) is a standby, which takes no writes: "
        "name the primary (with its standbys: host=a,b and port=p,q; libpq finds whichever is primary)")
    assert standby_only(down, dsn) is None
    assert standby_only(OSError("password authentication failed"), dsn) is None
