from shimgen.cli import entry

entry()
