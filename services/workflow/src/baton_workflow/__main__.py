from baton_workflow.entrypoints.main import main

main()
