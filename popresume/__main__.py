from popresume.cli import main

main()
