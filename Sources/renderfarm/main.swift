import RenderFarmCLI

RenderFarmCLI.main()
