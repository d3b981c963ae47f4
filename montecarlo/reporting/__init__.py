"""Reports from scenario results: tables (polars), findings, plots (matplotlib), report folders.

Reporting never simulates: it takes a :class:`montecarlo.scenarios.ScenarioResult` (or the
tables made from it) and writes files. :func:`check_out` says before any simulation whether a
report may be written to a folder (never over a user's files); :func:`write_report` writes one
scenario's folder atomically; :func:`write_index` the page linking every report.
"""

from montecarlo.reporting.findings import findings, headline
from montecarlo.reporting.report import check_index_out, check_out, write_index, write_report
from montecarlo.reporting.tables import all_tables, comparison_table, results_table

__all__ = [
    "all_tables",
    "check_index_out",
    "check_out",
    "comparison_table",
    "findings",
    "headline",
    "results_table",
    "write_index",
    "write_report",
]
