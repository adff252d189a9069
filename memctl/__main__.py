"""``python -m memoryd.memctl``: the same program as the ``memctl`` script."""

from memoryd.memctl.main import main

raise SystemExit(main())
