"""Where researchers should label next (docs/plan.md), as a package that reads top to bottom:

widths.py      the half width of a contractor's exact-agreement interval at a number of shared tasks
needs.py       each contractor's interval now, who is active, researcher-researcher overlap and the dimensions' coverage
candidates.py  the tasks a plan may propose: contractors rated them, no researcher has, none is assigned
choose.py      the greedy choice of tasks in priority order, their researchers and reasons
issued.py      plans a lead issued, kept with their completion, and withdrawn
exports.py     the plan as CSV, a Label Studio import and an assignment CSV
contract.py    the command line's JSON and text
"""
