"""Reports from scenario results: tables (polars), plots (matplotlib) and the report folder.

Reporting never simulates: it takes a :class:`montecarlo.scenarios.ScenarioResult` (or the
tables made from it) and writes files. :func:`write_report` writes one scenario's folder
atomically; :func:`write_index` the page linking every report.
"""

from montecarlo.reporting.report import write_index, write_report
from montecarlo.reporting.tables import all_tables, comparison_table, results_table

__all__ = ["all_tables", "comparison_table", "results_table", "write_index", "write_report"]
