"""The shell: the controller, the device adapter, the journal, config, logging, systemd."""
